/// A test seam that holds the journal writer before each write, so tests can fill the backlog
/// deterministically. Open by default; production code never closes it.
package final class WriterGate: Sendable {
    private struct State: ParksWaiters {
        var isOpen: Bool
        var waiters = Waiters()
        /// Writers that reached the closed gate (and took what they will write) and wait.
        var held = 0
        /// Tests waiting for a writer to be held (``someoneIsHeld()``), by a number of their own.
        var heldWatchers: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWatcher = 0
    }

    private let state: Locked<State>

    /// Creates a gate, closed unless `isOpen`.
    package init(isOpen: Bool = false) { state = Locked(State(isOpen: isOpen)) }

    /// Lets every held and future writer through.
    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Holds future writers again.
    package func close() { state.withLock { $0.isOpen = false } }

    /// Returns when the gate is open (or the calling task is cancelled).
    func pass() async {
        let arrival: (held: Bool, watchers: [CheckedContinuation<Void, Never>]) = state.withLock { state in
            guard !state.isOpen else { return (false, []) }
            state.held += 1
            defer { state.heldWatchers = [:] }
            return (true, Array(state.heldWatchers.values))
        }
        for watcher in arrival.watchers { watcher.resume() }
        await state.park { $0.isOpen }
        if arrival.held { state.withLock { $0.held -= 1 } }
    }

    /// Returns once a writer is held at the closed gate: whatever it took before reaching it
    /// (the outbox's loop: every message waiting then) is held with it. Returns at once when the
    /// calling task is cancelled, so a test's time limit ends the wait.
    package func someoneIsHeld() async {
        let number = state.withLock { state in
            defer { state.nextWatcher += 1 }
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.held > 0 || Task.isCancelled { return true }
                    state.heldWatchers[number] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.heldWatchers.removeValue(forKey: number) }?.resume()
        }
    }
}
