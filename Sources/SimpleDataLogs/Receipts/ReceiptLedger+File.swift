import Foundation

/// The ledger's file, `<area>/receipts.ledger`: one record in the outbox's record format
/// (DESIGN.md, "Record format": a marker, the length and a CRC-32 before the payload), whose
/// payload is `{"sdl_ledger":1,"ledger":{…}}`. A file that is torn, damaged or of another version
/// reads as no ledger: the outbox starts a new one (a new id, so no receipt id repeats) and says so.
extension ReceiptLedger {
    /// The file's name in its area.
    package static let fileName = "receipts.ledger"

    private struct Stored: Codable {
        var sdl_ledger: Int
        var ledger: ReceiptLedger
    }

    /// The file's bytes.
    package func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let payload = try? encoder.encode(Stored(sdl_ledger: 1, ledger: self)) else { return [] }
        var bytes: [UInt8] = []
        JournalRecord.append(payload: Array(payload), to: &bytes)
        return bytes
    }

    /// The ledger a file holds, or `nil` when it holds none intact (or of another version).
    package static func decode(_ bytes: [UInt8]) -> ReceiptLedger? {
        let payload: [UInt8]? = bytes.withUnsafeBytes { raw in
            let scan = JournalRecord.scan(raw)
            guard scan.damage.isEmpty, scan.records.count == 1, let range = scan.records.first else { return nil }
            return Array(raw[range])
        }
        guard let payload, let stored = try? JSONDecoder().decode(Stored.self, from: Data(payload)),
              stored.sdl_ledger == 1 else { return nil }
        return stored.ledger
    }
}
