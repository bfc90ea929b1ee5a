import Foundation

/// What the outbox keeps for the completeness receipts between two stores of the ledger
/// (`OutboxActor+Receipts.swift`), as one value: the actor holds one property for all of it.
struct ReceiptKeeping: Sendable {
    /// What the next receipt will say, stored in the area's ledger slots when there is an area.
    var ledger: ReceiptLedger
    /// The slot holding the newest stored copy (``ReceiptLedger/fileNames``); the next store
    /// rewrites the other. 1 before any, so the first store goes to the first slot.
    var slot = 1
    /// The newest store's number.
    var stored: UInt64 = 0
    /// The client's counters as last folded into ``ledger``.
    var baseline = ReceiptCounts()
    /// The ledger changed in memory and must be stored before the next file is deleted.
    var needsWrite = false
    /// Batch files whose deletion waits for the ledger to name them (`removeLater`).
    var removalsAwaitingLedger: [String] = []
    /// The receipts journaled by this run, pending in the ledger until the journal is whole.
    var journaled: Set<UUID> = []
    /// The last store of the ledger failed (its error line is said once an episode).
    var storeFailing = false
    /// The newest `app_version` property an event carried.
    var seenAppVersion: String?

    /// Keeping for `ledger`, nothing folded or waiting yet.
    init(ledger: ReceiptLedger) { self.ledger = ledger }
}
