import Foundation
import SimpleDataLogs

/// Reads every file under the outbox root with the record framing of DESIGN.md section 7
/// (`FF 53 44 4C`, little-endian length, CRC-32 of length and payload, payload), independently
/// of the SDK's own reader, and counts the events that are still there.
struct OutboxScan: Sendable {
    /// Intact event records (batch headers excluded), in every file.
    var eventRecords = 0
    /// The seqs of those events, for the evidence.
    var seqs: [Int64] = []
    /// Files that hold at least one event record, relative to the root.
    var filesWithEvents: [String] = []
    /// Every regular file, relative to the root (locks, markers and session files included).
    var allFiles: [String] = []
    /// Bytes that were not part of an intact record (torn tails, damage), in files that hold
    /// records at all.
    var damagedBytes = 0

    static func scan(root: String) -> OutboxScan {
        var result = OutboxScan()
        guard let walker = FileManager.default.enumerator(atPath: root) else { return result }
        var paths: [String] = []
        while let relative = walker.nextObject() as? String { paths.append(relative) }
        for relative in paths.sorted() {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            result.allFiles.append(relative)
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            if (relative as NSString).lastPathComponent.hasPrefix("intake-") {
                // An intake log: its events after the released mark were never journaled, so
                // after the final flush they are events left behind (read with the SDK's own
                // decoder: the format is the log's, not the journal's).
                let seqs = Self.unreleasedSeqs(inIntakeLog: bytes)
                if !seqs.isEmpty {
                    result.eventRecords += seqs.count
                    result.seqs += seqs
                    result.filesWithEvents.append(relative)
                }
                continue
            }
            guard bytes.starts(with: Self.marker) || relative.hasSuffix(".batch") || relative.hasSuffix(".log") else { continue }
            let (payloads, damaged) = Self.records(in: bytes)
            result.damagedBytes += damaged
            var events = 0
            for payload in payloads {
                guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { continue }
                // A batch header, or the completeness receipts' ledger: no event.
                if object["sdl_batch"] != nil || object["sdl_ledger"] != nil { continue }
                events += 1
                if let props = object["props"] as? [String: Any], let seq = (props["seq"] as? NSNumber)?.int64Value {
                    result.seqs.append(seq)
                }
            }
            if events > 0 {
                result.eventRecords += events
                result.filesWithEvents.append(relative)
            }
        }
        return result
    }

    static let marker: [UInt8] = [0xFF, 0x53, 0x44, 0x4C]

    /// The `seq` of every event an intake log holds after its released mark.
    static func unreleasedSeqs(inIntakeLog bytes: [UInt8]) -> [Int64] {
        guard case .success(let contents) = IntakeLogFormat.decode(bytes) else { return [] }
        return contents.unreleased.compactMap { record in
            guard record.kind == IntakeRecordCodec.Kind.event.rawValue else { return nil }
            return IntakeRecordCodec.seqProperty(ofEventPayload: record.payload)
        }
    }

    /// The intact records' payloads, and how many bytes were not part of one.
    static func records(in bytes: [UInt8]) -> (payloads: [ArraySlice<UInt8>], damagedBytes: Int) {
        var payloads: [ArraySlice<UInt8>] = []
        var damaged = 0
        var offset = 0
        while offset < bytes.count {
            if bytes.count - offset >= 12, bytes[offset..<offset + 4].elementsEqual(marker) {
                let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
                let stored = UInt32(bytes[offset + 8]) | UInt32(bytes[offset + 9]) << 8 | UInt32(bytes[offset + 10]) << 16 | UInt32(bytes[offset + 11]) << 24
                let end = offset + 12 + length
                if end <= bytes.count {
                    var crc = CRC32()
                    crc.update(bytes[offset + 4..<offset + 8])
                    crc.update(bytes[offset + 12..<end])
                    if crc.value == stored {
                        payloads.append(bytes[offset + 12..<end])
                        offset = end
                        continue
                    }
                }
            }
            // Not a record here: resume at the next 0xFF, counting what was skipped.
            var next = offset + 1
            while next < bytes.count && bytes[next] != 0xFF { next += 1 }
            damaged += next - offset
            offset = next
        }
        return (payloads, damaged)
    }
}

/// CRC-32 with zlib's polynomial (0xEDB88320, reflected), written out so the check does not
/// share code with the SDK it checks.
struct CRC32: Sendable {
    private(set) var state: UInt32 = 0xFFFF_FFFF

    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    mutating func update(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes { state = Self.table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8) }
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }
}
