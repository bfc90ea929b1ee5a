package import Foundation

/// What an outbox area owes its next completeness receipt, as a value: the counts since the last
/// receipt, the receipts made but not yet safe in the journal, and the batch files settled but
/// perhaps not yet deleted. Every input is a mutating function; nothing here touches a file or a
/// clock (the outbox passes the time in and stores the value, `OutboxActor+Receipts.swift`).
///
/// The rules that make a kill between two receipts lose or double nothing:
/// - the counts of a batch's fate and the batch file's name are stored together, before the file
///   is deleted (``settle(_:files:stillPresent:)``); recovery deletes the files named here without
///   counting or sending them again (``takeSettledFiles()``);
/// - a receipt is made in two stored steps: ``beginReceipt(at:setAside:pending:appVersion:)``
///   moves the counts into a ``PendingReceipt`` (stored), the receipt event is journaled, then
///   ``receiptsJournaled(_:)`` drops it (stored). A kill in between makes the same receipt again,
///   with the same event id (``PendingReceipt/eventID``), which the edge counts once;
/// - an adopted area's ledger is absorbed once (``absorb(_:at:)`` remembers its id).
package struct ReceiptLedger: Sendable, Hashable, Codable {
    /// This ledger's random id: with the sequence, it names each receipt's event id.
    package var id: UUID
    /// The sequence number of the next receipt, from 1.
    package var nextSequence = 1
    /// What was settled since the last receipt.
    package var counts = ReceiptCounts()
    /// The wall time of the last receipt, or of the ledger's creation, in milliseconds since 1970.
    package var periodStart: Int64
    /// Receipts made but not yet in a journal file: made again, with the same ids, until they are.
    package var pending: [PendingReceipt] = []
    /// Batch files (relative to the area: `batches/…`, `set-aside/…`) whose events are counted
    /// above or in an earlier receipt, and which may still exist: deleted, uncounted, at launch.
    package var settledFiles: [String] = []
    /// The ids of adopted areas' ledgers already absorbed, the newest last (at most
    /// ``absorbedLimit``): a copy found again after a kill is deleted, not counted twice.
    package var absorbed: [UUID] = []

    /// How many absorbed ledger ids are remembered.
    package static let absorbedLimit = 64

    /// A new ledger whose first period starts at `now` (milliseconds since 1970).
    package init(id: UUID, now: Int64) {
        self.id = id
        periodStart = now
    }

    /// Adds what the client counted since the last fold.
    package mutating func add(_ delta: ReceiptCounts) {
        counts = counts + delta
    }

    /// Records batch files whose fate was just counted (``add(_:)``) and are about to be
    /// deleted, and forgets those named earlier that are gone.
    /// - Parameters:
    ///   - files: The files about to be deleted, relative to the area.
    ///   - stillPresent: Whether an earlier-named file still exists.
    package mutating func settle(_ delta: ReceiptCounts, files: [String], stillPresent: (String) -> Bool) {
        add(delta)
        settledFiles = settledFiles.filter(stillPresent) + files
    }

    /// At launch: the files to delete without counting; the ledger no longer names them. Only
    /// names a ledger can hold are given (``isSettledFileName(_:)``): a ledger planted or damaged
    /// into a valid record must not turn launch into a way to delete the area's other files.
    package mutating func takeSettledFiles() -> [String] {
        defer { settledFiles = [] }
        return settledFiles.filter(Self.isSettledFileName)
    }

    /// Whether `name` is one the outbox settles: a batch file in `batches/` or `set-aside/`,
    /// relative to the area (`batches/<name>.batch`), with no other folder and no link up.
    package static func isSettledFileName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "batches" || parts[0] == "set-aside" else { return false }
        let file = parts[1]
        return file.hasSuffix(".batch") && file.count > ".batch".count && !file.hasPrefix(".")
    }

    /// Whether a receipt is due at `now`: a whole period since the last one.
    /// - Parameters:
    ///   - now: Milliseconds since 1970.
    ///   - period: The period, in milliseconds.
    package func isDue(now: Int64, period: Int64) -> Bool {
        now - periodStart >= period || now < periodStart - period
    }

    /// How long until the next receipt is due, in milliseconds (zero when due).
    package func untilDue(now: Int64, period: Int64) -> Int64 {
        isDue(now: now, period: period) ? 0 : min(period, periodStart + period - now)
    }

    /// Step 1 of a receipt: the counts become a pending receipt with the next sequence number;
    /// the next period starts at `now` with nothing counted.
    /// - Parameters:
    ///   - now: Milliseconds since 1970.
    ///   - setAside: Events set aside at this moment (a snapshot, not a flow).
    ///   - pending: Events on their way at this moment (a snapshot).
    ///   - appVersion: The app's version, if known.
    /// - Returns: The receipt to journal.
    package mutating func beginReceipt(at now: Int64, setAside: Int, pending waiting: Int, appVersion: String?) -> PendingReceipt {
        let receipt = PendingReceipt(
            ledger: id, sequence: nextSequence, counts: counts, since: periodStart, at: now,
            setAside: setAside, pending: waiting, appVersion: appVersion
        )
        pending.append(receipt)
        nextSequence += 1
        counts = ReceiptCounts()
        periodStart = now
        return receipt
    }

    /// Step 3: the receipts whose events a journal file now holds are no longer pending.
    package mutating func receiptsJournaled(_ eventIDs: Set<UUID>) {
        pending.removeAll { eventIDs.contains($0.eventID) }
    }

    /// Takes in the ledger of an adopted area (whose process is gone): its counts become a
    /// receipt of its own (its id and sequence), made with the rest of ``pending``; its pending
    /// receipts join ours. Nothing when it was absorbed before (a copy left by a kill).
    /// - Returns: Whether anything was taken.
    @discardableResult
    package mutating func absorb(_ other: ReceiptLedger, at now: Int64) -> Bool {
        guard other.id != id, !absorbed.contains(other.id) else { return false }
        var other = other
        if !other.counts.isZero {
            _ = other.beginReceipt(at: now, setAside: 0, pending: 0, appVersion: nil)
        }
        let known = Set(pending.map(\.eventID))
        pending += other.pending.filter { !known.contains($0.eventID) }
        absorbed.append(other.id)
        if absorbed.count > Self.absorbedLimit { absorbed.removeFirst(absorbed.count - Self.absorbedLimit) }
        return true
    }

    /// The opt-out wipes the ledger: a new id, sequence 1, nothing counted or pending. A receipt
    /// never says that its install opted out, and the new id keeps the new receipts' event ids
    /// apart from the old ones'.
    package static func wiped(id: UUID, now: Int64) -> ReceiptLedger {
        ReceiptLedger(id: id, now: now)
    }
}

/// A receipt made from a ledger (``ReceiptLedger/beginReceipt(at:setAside:pending:appVersion:)``),
/// kept until its event is in a journal file.
package struct PendingReceipt: Sendable, Hashable, Codable {
    /// The ledger that made it.
    package var ledger: UUID
    /// Its sequence number in that ledger, from 1: a gap at the ingest is a lost receipt.
    package var sequence: Int
    /// What was settled in its period.
    package var counts: ReceiptCounts
    /// When its period began and ended, in milliseconds since 1970.
    package var since: Int64
    package var at: Int64
    /// Snapshots at ``at``: events set aside, and events still on their way.
    package var setAside: Int
    package var pending: Int
    /// The app's version when it was made, if known.
    package var appVersion: String?

    /// The namespace of receipt event ids (``UUID/init(eventKey:in:)``).
    package static let eventKeyNamespace = "sdl-receipt"

    /// The receipt's event id, derived from the ledger's id and the sequence: the same every time
    /// the receipt is made again, so the edge counts it once.
    package var eventID: UUID {
        UUID(eventKey: EventEncoder.lowercaseString(ledger) + "/" + String(sequence), in: Self.eventKeyNamespace)
    }
}
