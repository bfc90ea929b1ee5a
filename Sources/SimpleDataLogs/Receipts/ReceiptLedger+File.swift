import Foundation

/// The ledger's files: two slots in the area, `receipts.ledger` and `receipts.ledger.1`, each one
/// record in the outbox's record format (DESIGN.md, "Layout", its **Records**: a marker, the length and a
/// CRC-32 before the payload), whose payload is `{"sdl_ledger":1,"stored":n,"ledger":{…}}`. Each
/// store rewrites the slot that does not hold the newest copy, in place: no new file, no rename
/// (a quarter of a millisecond per store, measured, on the path of every delivery). A kill during
/// a store leaves that slot torn or empty and the other whole, one store older, which is safe: the
/// files the torn store named were not deleted yet. Launch reads the intact slot stored last. A
/// slot that is torn, damaged or of another version reads as none; with no slot intact the outbox
/// starts a new ledger (a new id, so no receipt id repeats) and says so.
extension ReceiptLedger {
    /// The two slots' names in their area.
    package static let fileNames = ["receipts.ledger", "receipts.ledger.1"]

    private struct Stored: Codable {
        var sdl_ledger: Int
        /// How many stores came before this one, plus one: the newer slot has the larger.
        var stored: UInt64?
        var ledger: ReceiptLedger
    }

    /// A slot's bytes.
    /// - Parameter stored: The store's number (the slot read back with the larger one wins).
    package func encoded(stored: UInt64 = 0) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let payload = try? encoder.encode(Stored(sdl_ledger: 1, stored: stored, ledger: self)) else { return [] }
        var bytes: [UInt8] = []
        JournalRecord.append(payload: Array(payload), to: &bytes)
        return bytes
    }

    /// The ledger a slot holds, or `nil` when it holds none intact (or of another version).
    package static func decode(_ bytes: [UInt8]) -> ReceiptLedger? {
        decodeStored(bytes)?.ledger
    }

    /// The ledger a slot holds and its store's number, or `nil` when it holds none intact.
    package static func decodeStored(_ bytes: [UInt8]) -> (ledger: ReceiptLedger, stored: UInt64)? {
        let payload: [UInt8]? = bytes.withUnsafeBytes { raw in
            let scan = JournalRecord.scan(raw)
            guard scan.damage.isEmpty, scan.records.count == 1, let range = scan.records.first else { return nil }
            return Array(raw[range])
        }
        guard let payload, let stored = try? JSONDecoder().decode(Stored.self, from: Data(payload)),
              stored.sdl_ledger == 1 else { return nil }
        return (stored.ledger, stored.stored ?? 0)
    }

    /// The newest intact ledger among the slots as read (`nil`: no such file), with its slot and
    /// store number; `nil` when none is intact.
    package static func newest(of slots: [[UInt8]?]) -> (ledger: ReceiptLedger, slot: Int, stored: UInt64)? {
        var best: (ledger: ReceiptLedger, slot: Int, stored: UInt64)?
        for (slot, bytes) in slots.enumerated() {
            guard let bytes, let found = decodeStored(bytes) else { continue }
            if best == nil || found.stored > best!.stored { best = (found.ledger, slot, found.stored) }
        }
        return best
    }
}
