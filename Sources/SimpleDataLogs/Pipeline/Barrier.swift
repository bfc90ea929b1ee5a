import Dispatch

/// A one-shot marker that travels down the pipeline behind earlier work; whoever waits on it
/// resumes when the last stage has passed it. `flush()` uses it to know that every event tracked
/// before the call is in the journal.
final class Barrier: Sendable {
    private struct State: ParksWaiters {
        var passed = false
        /// Tasks parked in ``wait()`` and threads blocked in ``blockUntilPassed(timeout:)``.
        var waiters = Waiters()
    }

    private let state = Locked(State())

    /// Marks the barrier passed and resumes every waiter. Later calls do nothing.
    func pass() {
        let waiters = state.withLock { state in
            state.passed = true
            return state.waiters.takeAll()
        }
        // Resumed outside the lock: a resumed task may run at once and come back to this lock.
        waiters.resume()
    }

    /// Blocks the calling thread until the barrier is passed or `timeout` comes. Only for the
    /// one documented bounded wait at process termination, on a thread the app is ending anyway.
    /// - Returns: Whether the barrier was passed in time.
    @available(*, noasync, message: "Blocks the calling thread; await wait() instead.")
    func blockUntilPassed(timeout: DispatchTime) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let passed: Bool = state.withLock { state in
            if !state.passed { state.waiters.add(thread: semaphore) }
            return state.passed
        }
        return passed || semaphore.wait(timeout: timeout) == .success
    }

    /// Returns once the barrier has been passed, or at once when the calling task is cancelled
    /// (the work behind the barrier goes on regardless).
    func wait() async {
        await state.park { $0.passed }
    }
}
