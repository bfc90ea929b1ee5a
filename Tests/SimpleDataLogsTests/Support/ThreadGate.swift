import Dispatch
@testable import SimpleDataLogs

/// A gate for code that runs on a thread of its own and cannot suspend (a `FileSystem` call on
/// the sealer's thread): while closed, ``blockWhileClosed()`` blocks the calling thread until
/// ``open()``. Never call it from a thread of the cooperative pool.
final class ThreadGate: Sendable {
    private struct State: Sendable {
        var isOpen: Bool
        var blocked: [DispatchSemaphore] = []
        /// How many threads have ever been held here (to wait until the code under test arrived).
        var arrivals = 0
        var arrivalWaiters: [DispatchSemaphore] = []
    }

    private let state: Locked<State>

    init(isOpen: Bool) { state = Locked(State(isOpen: isOpen)) }

    /// Holds the threads that arrive from now on.
    func close() { state.withLock { $0.isOpen = false } }

    /// Lets every held thread go, and every later one through.
    func open() {
        let blocked = state.withLock { state in
            state.isOpen = true
            defer { state.blocked = [] }
            return state.blocked
        }
        for semaphore in blocked { semaphore.signal() }
    }

    /// How many threads were held so far.
    var arrivals: Int { state.withLock { $0.arrivals } }

    /// Returns at once while open; else blocks until ``open()``.
    func blockWhileClosed() {
        let semaphore = DispatchSemaphore(value: 0)
        let (held, arrived): (Bool, [DispatchSemaphore]) = state.withLock { state in
            guard !state.isOpen else { return (false, []) }
            state.arrivals += 1
            state.blocked.append(semaphore)
            defer { state.arrivalWaiters = [] }
            return (true, state.arrivalWaiters)
        }
        for waiter in arrived { waiter.signal() }
        if held { semaphore.wait() }
    }

    /// Blocks the calling thread (never one of the pool's) until a thread is held here, or
    /// `timeout` passes. Returns whether one is.
    func blockUntilSomeoneIsHeld(timeout: DispatchTime) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let already: Bool = state.withLock { state in
            guard state.arrivals == 0 else { return true }
            state.arrivalWaiters.append(semaphore)
            return false
        }
        return already || semaphore.wait(timeout: timeout) == .success
    }
}
