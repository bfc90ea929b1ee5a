/// A test seam that holds the journal writer before each write, so tests can fill the backlog
/// deterministically. Open by default; production code never closes it.
package final class WriterGate: Sendable {
    private struct State: Sendable {
        var isOpen: Bool
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    /// Creates a gate, closed unless `isOpen`.
    package init(isOpen: Bool = false) { state = Locked(State(isOpen: isOpen)) }

    /// Lets every held and future writer through.
    package func open() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Holds future writers again.
    package func close() { state.withLock { $0.isOpen = false } }


    /// Returns when the gate is open.
    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen: Bool = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
