/// A test seam that holds the journal writer before each write, so tests can fill the backlog
/// deterministically. Open by default; production code never closes it.
package final class WriterGate: Sendable {
    private struct State: ParksWaiters {
        var isOpen: Bool
        var waiters = Waiters()
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
        await state.park { $0.isOpen }
    }
}
