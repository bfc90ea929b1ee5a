import Foundation

/// Package-level doors into the outbox's readers, for the libFuzzer targets in `Tests/Fuzz/`
/// (`FuzzJournalRecord`, `FuzzBatchFile`). Thin wrappers only: the harnesses must exercise exactly
/// the code the SDK runs. Nothing in the SDK calls these.
package enum FuzzSupport {
    /// The bytes before each record's payload: marker, length and checksum.
    package static var recordHeaderSize: Int { JournalRecord.headerSize }

    /// The largest payload the reader accepts.
    package static var maxPayloadSize: Int { JournalRecord.maxPayloadSize }

    /// The record marker, `FF 53 44 4C`.
    package static var recordMarker: [UInt8] { JournalRecord.marker }

    /// ``JournalRecord/scan(_:)``: each intact record's payload range, and the damaged runs.
    package static func scanRecords(_ bytes: UnsafeRawBufferPointer) -> (records: [Range<Int>], damage: [(offset: Int, length: Int)]) {
        let result = JournalRecord.scan(bytes)
        return (result.records, result.damage.map { ($0.offset, $0.length) })
    }

    /// ``JournalRecord/append(payload:to:)-(UnsafeRawBufferPointer,_)``: frames one record.
    package static func appendRecord(payload: [UInt8], to buffer: inout [UInt8]) {
        JournalRecord.append(payload: payload, to: &buffer)
    }

    /// ``BatchFile/decode(_:)``: a batch file's events (header records dropped) and damaged runs.
    package static func decodeBatch(_ bytes: [UInt8]) -> (payloads: [[UInt8]], damage: [(offset: Int, length: Int)]) {
        let contents = BatchFile.decode(bytes)
        return (contents.payloads, contents.damage.map { ($0.offset, $0.length) })
    }

    /// ``BatchFile/encode(_:)`` of a batch with a fixed id: a header record, then one per payload.
    package static func encodeBatch(sequence: Int, path: String, payloads: [[UInt8]]) -> [UInt8] {
        let id = UUID(uuid: (0x01, 0x8F, 0x00, 0x00, 0x00, 0x00, 0x70, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01))
        return BatchFile.encode(SealedBatch(id: id, sequence: sequence, path: path, payloads: payloads))
    }
}
