/// Tasks parked in a lock's state until something happens, oldest first. Each has an id, so
/// that a waiter whose task is cancelled can be taken out and resumed at once.
///
/// Used through ``Locked/park(unless:)``; whoever changes the state so that waiters may go takes
/// them out (``takeAll()``, ``takeFirst(_:)``) under the lock and resumes them after it.
package struct WaiterQueue: Sendable {
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextID = 0

    /// An empty queue.
    package init() {}

    /// How many tasks wait.
    package var count: Int { waiters.count }

    /// An id for the next waiter.
    package mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    package mutating func append(_ id: Int, _ continuation: CheckedContinuation<Void, Never>) {
        waiters.append((id, continuation))
    }

    /// The waiter `id`, taken out, if it still waits.
    package mutating func remove(_ id: Int) -> CheckedContinuation<Void, Never>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).continuation
    }

    /// Every waiter, taken out; resume them after the lock.
    package mutating func takeAll() -> [CheckedContinuation<Void, Never>] {
        defer { waiters = [] }
        return waiters.map(\.continuation)
    }

    /// The `count` oldest waiters, taken out; resume them after the lock.
    package mutating func takeFirst(_ count: Int) -> [CheckedContinuation<Void, Never>] {
        let taken = min(max(count, 0), waiters.count)
        defer { waiters.removeFirst(taken) }
        return waiters.prefix(taken).map(\.continuation)
    }
}

/// A lock state that parks tasks in a ``WaiterQueue``.
package protocol ParksWaiters: Sendable {
    /// The tasks waiting for this state to change.
    var waiters: WaiterQueue { get set }
}

extension Locked where State: ParksWaiters {
    /// Suspends the calling task, holding no thread, until a state change takes it out of the
    /// queue; returns at once when `isReady` holds (checked under the lock, so no wake-up is
    /// missed between the check and the parking) or when the task is cancelled.
    package func park(unless isReady: (State) -> Bool) async {
        let id = withLock { $0.waiters.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = withLock { state in
                    if isReady(state) || Task.isCancelled { return true }
                    state.waiters.append(id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            withLock { $0.waiters.remove(id) }?.resume()
        }
    }
}
