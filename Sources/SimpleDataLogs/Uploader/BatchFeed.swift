import Foundation

/// What the outbox tells the uploader about its queue of sealed batches, in order: batches that
/// joined it (sealed, recovered, split, queued again) and batches that left it (delivered,
/// evicted by the caps, deleted by the opt-out, set aside, vanished).
///
/// The intake's queue-plus-wake-up pattern: the changes wait in a list under a lock, and the
/// first change after the uploader took the list wakes it (one `.batchesAvailable` on its signal
/// stream). The uploader takes every waiting change at once, without suspending, before each
/// round, so a pass sees batches sealed while it runs, and its own copy of the queue is fed by
/// the outbox instead of read from it with an actor call per round.
final class BatchFeed: Sendable {
    /// One change to the outbox's queue.
    enum Change: Sendable, Equatable {
        case joined([StoredBatch])
        case left([UUID])
    }

    private struct Pending: Sendable {
        var changes: [Change] = []
        var wakePending = false
    }

    private let pending = Locked(Pending())
    private let wake: @Sendable () -> Void

    /// - Parameter wake: Wakes the uploader (yields `.batchesAvailable` on its signals).
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Posts the changes of one outbox operation together, in order: the uploader takes all of
    /// them or none (a round never sees the first of four batches sealed together alone).
    func post(_ changes: [Change]) {
        guard !changes.isEmpty else { return }
        let wakes: Bool = pending.withLock { pending in
            pending.changes.append(contentsOf: changes)
            defer { pending.wakePending = true }
            return !pending.wakePending
        }
        if wakes { wake() }
    }

    /// Every change posted since the last call, oldest first; the next post wakes the uploader.
    func take() -> [Change] {
        pending.withLock { pending in
            pending.wakePending = false
            defer { pending.changes.removeAll(keepingCapacity: true) }
            return pending.changes
        }
    }
}
