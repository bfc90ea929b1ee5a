import Dispatch
import Foundation

/// A serial executor that runs its jobs on one thread of its own.
///
/// The cooperative pool has one thread per core (two on our CI machines). Blocking calls such
/// as `write(2)` and `fsync` (0.25 to 0.7 ms each here) would hold one of those threads and
/// stall every task in the process. An actor whose `unownedExecutor` is one of these runs all its
/// code, blocking calls included, on this thread instead, and resumes here after each `await`.
final class ThreadExecutor: SerialExecutor, Sendable {
    private struct Queue: Sendable {
        var jobs: [UnownedJob] = []
        var head = 0
        var stopRequested = false
        /// Set by the thread, under the lock, as it exits with nothing queued.
        var exited = false
    }

    private let queue = Locked(Queue())
    /// Counts queued jobs; the thread sleeps on it when there are none.
    private let available = DispatchSemaphore(value: 0)
    /// Runs jobs that arrive after the thread has exited, still one at a time and still off the
    /// cooperative pool.
    private let afterStop: DispatchQueue
    let name: String

    /// Starts the thread.
    /// - Parameter name: The thread's name, as debuggers and `top -H` show it: at most 15
    ///   characters, the kernel's limit (`sdl.outbox`).
    init(name: String) {
        self.name = name
        afterStop = DispatchQueue(label: "\(name).after-stop")
        let thread = Thread { [self] in
            // Named from inside: on Linux, Foundation gives the kernel a thread's name only when
            // the thread itself sets it, so a name set before `start()` never reached `top -H`.
            Thread.current.name = name
            self.runLoop()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The form the runtime calls where `ExecutorJob` exists (macOS 14, iOS 17, Linux).
    @available(macOS 14, iOS 17, *)
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    /// The form the runtime calls on macOS 13 and iOS 16, the package's floor; the newer form
    /// forwards here, so there is one queue either way.
    func enqueue(_ job: UnownedJob) {
        let accepted: Bool = queue.withLock { queue in
            guard !queue.exited else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted {
            available.signal()
        } else {
            // The thread is gone; a late job (a task resuming after shutdown) still has to run,
            // serially: the thread ran nothing after it marked itself exited, so order holds.
            afterStop.async { [self] in job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread finish the jobs already queued and exit. Idempotent.
    func stop() {
        let wasRunning: Bool = queue.withLock { queue in
            defer { queue.stopRequested = true }
            return !queue.stopRequested
        }
        if wasRunning { available.signal() }
    }

    private func runLoop() {
        while true {
            available.wait()
            let next: UnownedJob?? = queue.withLock { queue in
                if queue.head < queue.jobs.count {
                    let job = queue.jobs[queue.head]
                    queue.head += 1
                    if queue.head == queue.jobs.count {
                        queue.jobs.removeAll(keepingCapacity: true)
                        queue.head = 0
                    }
                    return .some(job)
                }
                guard queue.stopRequested else { return .some(nil) }
                queue.exited = true
                return .none
            }
            switch next {
            case .none: return
            case .some(nil): continue
            case .some(let job?): job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }
}

/// Also a task executor: a task started with this executor as its preference resumes here after
/// a continuation (an `AsyncStream` element, a timer) instead of on the cooperative pool. Without
/// it, an actor on this thread still needs a free pool thread to be woken, as measured: with the
/// pool saturated, an `AsyncStream` element never reached an actor on a thread of its own.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
extension ThreadExecutor: TaskExecutor {
    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}

extension Task where Success == Void, Failure == Never {
    /// Starts a task that runs on `executor`'s thread (where the platform has task executors:
    /// Linux, and Apple platforms from macOS 15 / iOS 18), not on the cooperative pool, so it
    /// starts and resumes even while the pool is busy; elsewhere a plain task.
    ///
    /// The pipeline's own tasks start this way: a released client's teardown that waited for a
    /// free pool thread stayed queued while its caller went on making clients on the pool, and
    /// their threads piled up (issue 23: 18,352 at peak; `ReleasedClientThreadTests`).
    @discardableResult
    static func preferring(_ executor: ThreadExecutor, operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *) {
            Task(executorPreference: executor, operation: operation)
        } else {
            Task(operation: operation)
        }
    }
}

extension TaskGroup where ChildTaskResult == Void {
    /// Adds a child task that prefers `executor`, where the platform has task executors (Linux,
    /// and Apple platforms from macOS 15 / iOS 18); elsewhere a plain child task.
    mutating func addTask(preferring executor: ThreadExecutor, operation: sending @escaping @isolated(any) () async -> Void) {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *) {
            addTask(executorPreference: executor, operation: operation)
        } else {
            addTask(operation: operation)
        }
    }
}
