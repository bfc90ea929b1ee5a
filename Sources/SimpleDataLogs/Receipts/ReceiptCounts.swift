/// What became of events since the last completeness receipt, by reason: the flows of
/// ``DeliveryCounters`` that end an event's journey, and nothing that is still on its way.
///
/// A value with no I/O. The outbox folds the client's counters into its ``ReceiptLedger`` as
/// differences (``init(_:)`` and `-`), so a count can go down within a period (a batch evicted by
/// the caps and then accepted after all moves from ``evictedByCaps`` to ``delivered``); the sum
/// over receipts stays exact.
package struct ReceiptCounts: Sendable, Hashable, Codable {
    /// Accepted by the ingest (202).
    package var delivered = 0
    /// Listed in a 202's `rejected`.
    package var rejectedByIngest = 0
    /// In the oldest batches, dropped at a cap.
    package var evictedByCaps = 0
    /// Too large to send even alone.
    package var droppedTooLarge = 0
    /// In a batch file another program deleted.
    package var lostFromDisk = 0
    /// Skipped because the backlog was full.
    package var skippedBacklog = 0
    /// Dropped by validation.
    package var invalid = 0
    /// Dropped by a middleware step.
    package var droppedByMiddleware = 0
    /// Dropped because more were tracked before `configure` than the client holds.
    package var droppedBeforeConfigure = 0
    /// Dropped when shutdown's time limit ran out with a step still at work.
    package var droppedAtShutdown = 0

    /// All zero.
    package init() {}

    /// The ending flows of `counters`, as counted since the client was created.
    package init(_ counters: DeliveryCounters) {
        delivered = counters.delivered
        rejectedByIngest = counters.rejectedByIngest
        evictedByCaps = counters.evictedByCaps
        droppedTooLarge = counters.droppedTooLarge
        lostFromDisk = counters.lostFromDisk
        skippedBacklog = counters.skippedBacklog
        invalid = counters.invalid
        droppedByMiddleware = counters.droppedByMiddleware
        droppedBeforeConfigure = counters.droppedBeforeConfigure
        droppedAtShutdown = counters.droppedAtShutdown
    }

    /// Every field, in wire order, with its property name; one list, so the event, the sum and
    /// the arithmetic cannot disagree about the fields.
    package static var fields: [(name: String, path: WritableKeyPath<ReceiptCounts, Int>)] { [
        ("delivered", \.delivered), ("rejected", \.rejectedByIngest), ("evicted", \.evictedByCaps),
        ("too_large", \.droppedTooLarge), ("lost_from_disk", \.lostFromDisk), ("skipped_backlog", \.skippedBacklog),
        ("invalid", \.invalid), ("dropped_by_middleware", \.droppedByMiddleware),
        ("dropped_before_configure", \.droppedBeforeConfigure), ("dropped_at_shutdown", \.droppedAtShutdown),
    ] }

    /// Every event whose fate these counts settle.
    package var settled: Int { Self.fields.reduce(0) { $0 + self[keyPath: $1.path] } }

    /// Whether nothing was counted.
    package var isZero: Bool { Self.fields.allSatisfy { self[keyPath: $0.path] == 0 } }

    /// Whether a field the outbox settles for a batch file changed: these must reach the ledger
    /// before the file goes (the others are decided in memory and ride along).
    package func differsInFileSettlements(from other: ReceiptCounts) -> Bool {
        delivered != other.delivered || rejectedByIngest != other.rejectedByIngest || evictedByCaps != other.evictedByCaps
            || droppedTooLarge != other.droppedTooLarge || lostFromDisk != other.lostFromDisk
    }

    /// Field by field sum.
    package static func + (lhs: ReceiptCounts, rhs: ReceiptCounts) -> ReceiptCounts {
        var sum = lhs
        for field in fields { sum[keyPath: field.path] += rhs[keyPath: field.path] }
        return sum
    }

    /// Field by field difference.
    package static func - (lhs: ReceiptCounts, rhs: ReceiptCounts) -> ReceiptCounts {
        var difference = lhs
        for field in fields { difference[keyPath: field.path] -= rhs[keyPath: field.path] }
        return difference
    }
}
