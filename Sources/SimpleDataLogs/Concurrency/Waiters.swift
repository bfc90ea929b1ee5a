package import Dispatch

/// Tasks and threads waiting for a state to change, kept in the state that changes: the SDK's
/// one waiter registry. It serves both kinds of wait:
/// - *for an event* (a barrier passed, room in the backlog, a gate opened): whoever changes the
///   state takes the waiters out (``takeAll()``, ``takeFirst(_:)``);
/// - *for a count* (events written, batches sealed, sealer jobs done): each waiter has a target,
///   and whoever moves the count takes out those it reached (``takeReached(_:)``).
///
/// The state's owner changes it and takes the waiters out under its lock (or inside its actor),
/// then resumes them after (``Released``), so no waiter misses a change and none is resumed
/// twice. Tasks suspend holding no thread (``Locked/park(unless:)`` parks one, and takes it out
/// again if it is cancelled); threads block on a semaphore, only where a thread must (the
/// outbox's own, the crash-test children, the termination hold), never the cooperative pool's.
package struct Waiters: Sendable {
    /// One waiter: a suspended task or a blocked thread.
    package enum Waker: Sendable {
        case task(CheckedContinuation<Void, Never>)
        case thread(DispatchSemaphore)

        /// Resumes the task or wakes the thread. Call it after leaving the lock.
        package func resume() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .thread(let semaphore): semaphore.signal()
            }
        }
    }

    /// Waiters taken out, to resume after the lock (``resume()``, or one by one).
    package struct Released: Sendable, Sequence, ExpressibleByArrayLiteral {
        fileprivate var wakers: [Waker]

        package init(arrayLiteral elements: Waker...) { wakers = elements }
        fileprivate init(_ wakers: [Waker]) { self.wakers = wakers }

        /// How many waiters were taken out.
        package var count: Int { wakers.count }

        /// Whether none was taken out.
        package var isEmpty: Bool { wakers.isEmpty }

        /// Resumes every waiter taken out. Call it after leaving the lock.
        package func resume() {
            for waker in wakers { waker.resume() }
        }

        package func makeIterator() -> IndexingIterator<[Waker]> { wakers.makeIterator() }

        /// Both sets of waiters.
        package static func + (lhs: Released, rhs: Released) -> Released { Released(lhs.wakers + rhs.wakers) }
    }

    private struct Entry: Sendable {
        var id: Int
        /// The count this waiter waits for; 0 for one that waits for an event.
        var target: Int
        var waker: Waker
    }

    private var entries: [Entry] = []
    private var nextID = 0

    /// An empty registry.
    package init() {}

    /// How many wait.
    package var count: Int { entries.count }

    /// Whether nobody waits.
    package var isEmpty: Bool { entries.isEmpty }

    /// An id for the next waiter, to take it out again by (``remove(_:)``).
    package mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Adds a task that waits for an event, under `id` (``makeID()``).
    package mutating func append(_ id: Int, _ continuation: CheckedContinuation<Void, Never>) {
        entries.append(Entry(id: id, target: 0, waker: .task(continuation)))
    }

    /// Adds a task that waits for a count to reach `target`.
    package mutating func add(task continuation: CheckedContinuation<Void, Never>, for target: Int) {
        entries.append(Entry(id: makeID(), target: target, waker: .task(continuation)))
    }

    /// Adds a blocked thread that waits for a count to reach `target` (0: for an event).
    package mutating func add(thread semaphore: DispatchSemaphore, for target: Int = 0) {
        entries.append(Entry(id: makeID(), target: target, waker: .thread(semaphore)))
    }

    /// The waiter `id`, taken out, if it still waits (its task was cancelled).
    package mutating func remove(_ id: Int) -> Waker? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: index).waker
    }

    /// Every waiter, taken out.
    package mutating func takeAll() -> Released {
        defer { entries = [] }
        return Released(entries.map(\.waker))
    }

    /// The `count` oldest waiters, taken out.
    package mutating func takeFirst(_ count: Int) -> Released {
        let taken = min(max(count, 0), entries.count)
        defer { entries.removeFirst(taken) }
        return Released(entries.prefix(taken).map(\.waker))
    }

    /// Every waiter whose target `count` reaches, taken out.
    package mutating func takeReached(_ count: Int) -> Released {
        guard !entries.isEmpty else { return [] }
        let reached = entries.filter { $0.target <= count }.map(\.waker)
        guard !reached.isEmpty else { return [] }
        entries.removeAll { $0.target <= count }
        return Released(reached)
    }
}

/// A lock state that parks tasks in ``Waiters``.
package protocol ParksWaiters: Sendable {
    /// The tasks waiting for this state to change.
    var waiters: Waiters { get set }
}

extension Locked where State: ParksWaiters {
    /// Suspends the calling task, holding no thread, until a state change takes it out of the
    /// registry; returns at once when `isReady` holds (checked under the lock, so no wake-up is
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
