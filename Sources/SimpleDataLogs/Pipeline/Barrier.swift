import Dispatch

/// A one-shot marker that travels down the pipeline behind earlier work; whoever waits on it
/// resumes when the last stage has passed it. `flush()` uses it to know that every event tracked
/// before the call is in the journal.
final class Barrier: Sendable {
    private struct State: Sendable {
        var passed = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var blockedThreads: [DispatchSemaphore] = []
    }

    private let state = Locked(State())

    /// Marks the barrier passed and resumes every waiter. Later calls do nothing.
    func pass() {
        let (waiters, threads) = state.withLock { state in
            state.passed = true
            defer {
                state.waiters = [:]
                state.blockedThreads = []
            }
            return (Array(state.waiters.values), state.blockedThreads)
        }
        // Resumed outside the lock: a resumed task may run at once and come back to this lock.
        for waiter in waiters { waiter.resume() }
        for thread in threads { thread.signal() }
    }

    /// Blocks the calling thread until the barrier is passed or `timeout` comes. Only for the
    /// one documented bounded wait at process termination, on a thread the app is ending anyway.
    /// - Returns: Whether the barrier was passed in time.
    func blockUntilPassed(timeout: DispatchTime) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let passed: Bool = state.withLock { state in
            if !state.passed { state.blockedThreads.append(semaphore) }
            return state.passed
        }
        return passed || semaphore.wait(timeout: timeout) == .success
    }

    /// Returns once the barrier has been passed, or at once when the calling task is cancelled
    /// (the work behind the barrier goes on regardless).
    func wait() async {
        let id: Int = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.passed || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
