import Dispatch

/// Tasks and threads waiting for a count to reach their target (events written, batches sealed),
/// kept in the state that owns the count: the one registry for "wake me at N".
///
/// Whoever moves the count calls ``takeReached(_:)`` under the state's lock (or inside its actor)
/// and resumes what it returns after; so no waiter misses a count, and none is resumed twice.
/// Threads block on a semaphore with a timeout (the crash-test children and the termination
/// hold, never the cooperative pool); tasks suspend holding no thread.
struct ThresholdWaiters: Sendable {
    /// The waiters a count reached, taken out; ``resume()`` lets them go.
    struct Reached: Sendable {
        fileprivate var tasks: [CheckedContinuation<Void, Never>] = []
        fileprivate var threads: [DispatchSemaphore] = []

        /// How many waiters were reached.
        var count: Int { tasks.count + threads.count }

        /// Resumes the tasks and wakes the threads. Call it after leaving the lock.
        func resume() {
            for task in tasks { task.resume() }
            for thread in threads { thread.signal() }
        }
    }

    private var tasks: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var threads: [(target: Int, semaphore: DispatchSemaphore)] = []

    /// Whether nobody waits.
    var isEmpty: Bool { tasks.isEmpty && threads.isEmpty }

    /// Adds a task that waits for `target`.
    mutating func add(task continuation: CheckedContinuation<Void, Never>, for target: Int) {
        tasks.append((target, continuation))
    }

    /// Adds a blocked thread that waits for `target`.
    mutating func add(thread semaphore: DispatchSemaphore, for target: Int) {
        threads.append((target, semaphore))
    }

    /// Takes out every waiter whose target `count` reaches.
    mutating func takeReached(_ count: Int) -> Reached {
        guard !isEmpty else { return Reached() }
        var reached = Reached()
        reached.tasks = tasks.filter { $0.target <= count }.map(\.continuation)
        reached.threads = threads.filter { $0.target <= count }.map(\.semaphore)
        tasks.removeAll { $0.target <= count }
        threads.removeAll { $0.target <= count }
        return reached
    }
}
