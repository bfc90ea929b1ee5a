package import Foundation

/// A sealed batch: a fixed set of events with one id, sent as one request.
package struct SealedBatch: Sendable, Equatable {
    /// Sent as `SDL-Batch-ID` on every try.
    var id: UUID
    /// The journal sequence it was sealed from, or a fresh one for adopted files; orders batches.
    var sequence: Int
    /// `r` when sealed from a journal; `r0`, `r1`, … for the halves of a 413 split.
    var path: String
    /// The events, each an encoded JSON object exactly as it goes on the wire.
    var payloads: [[UInt8]]

    /// A batch of these events; ``BatchFile/encode(_:)`` writes it as a file.
    package init(id: UUID, sequence: Int, path: String, payloads: [[UInt8]]) {
        self.id = id
        self.sequence = sequence
        self.path = path
        self.payloads = payloads
    }

    var fileName: String { JournalName.batch(sequence: sequence, path: path, id: EventEncoder.lowercaseString(id)) }

    /// The request body's size before compression: `{"sent_at":…,"events":[…]}`.
    var bodyBytes: Int { SealedBatch.bodyBytes(payloadBytes: payloads.reduce(0) { $0 + $1.count }, count: payloads.count) }

    static func bodyBytes(payloadBytes: Int, count: Int) -> Int {
        EventLimits.bodyOverheadBytes + payloadBytes + max(0, count - 1)
    }
}

/// The batch file format: framed records (``JournalRecord``), the first of which is a header.
///
/// ```
/// record 0   {"sdl_batch":1,"id":"<uuid>","seq":<n>,"path":"r"}
/// record 1…  one event each
/// ```
///
/// A journal file has the same format, so that sealing it is an `fsync` and a rename. The header
/// repeats what the file name says, so a renamed or damaged name can be checked; a damaged header
/// costs nothing but the check (the name still carries id, sequence and path).
package enum BatchFile {
    /// The batch as a file: its header record, then one record per event.
    package static func encode(_ batch: SealedBatch) -> [UInt8] {
        var bytes = header(id: batch.id, sequence: batch.sequence, path: batch.path)
        bytes.reserveCapacity(batch.bodyBytes + batch.payloads.count * JournalRecord.headerSize + 128)
        for payload in batch.payloads { JournalRecord.append(payload: payload, to: &bytes) }
        return bytes
    }

    /// The framed header record that starts every batch and journal file.
    static func header(id: UUID, sequence: Int, path: String) -> [UInt8] {
        let header = #"{"sdl_batch":1,"id":""# + EventEncoder.lowercaseString(id) + #"","seq":\#(sequence),"path":"\#(path)"}"#
        var bytes: [UInt8] = []
        JournalRecord.append(payload: Array(header.utf8), to: &bytes)
        return bytes
    }

    /// What a batch file held: its intact events and the damaged runs.
    package struct Contents: Sendable {
        /// The events, in file order; header records are dropped.
        package var payloads: [[UInt8]]
        /// The damaged runs, as the record scan found them.
        package var damage: [JournalRecord.Damage]
        /// The `id` of each intact header record, in file order, as written (a lowercase UUID):
        /// one for a batch file. A reader checks it against the batch it meant to read.
        package var headerIDs: [String] = []

        /// Why these contents are not the batch named `expected` (a lowercase id), or nil when
        /// they may be: more than one header (files joined), or a header naming another batch
        /// (a file copied in under another name, or recycled under a read). A file with no
        /// header passes: journals sealed before headers existed have none.
        package func headerMismatch(expected: String) -> String? {
            if headerIDs.count > 1 { return "\(headerIDs.count) headers in one file" }
            if let found = headerIDs.first, found != expected { return "its header names batch \(found.isEmpty ? "(none)" : found)" }
            return nil
        }
    }

    /// Reads a batch (or journal) file's bytes: every intact event record, and the damage.
    package static func decode(_ bytes: [UInt8]) -> Contents {
        bytes.withUnsafeBytes { raw in
            let scan = JournalRecord.scan(raw)
            var payloads: [[UInt8]] = []
            var headerIDs: [String] = []
            payloads.reserveCapacity(scan.records.count)
            for range in scan.records {
                let payload = UnsafeRawBufferPointer(rebasing: raw[range])
                if isHeader(payload) {
                    headerIDs.append(headerID(payload) ?? "")
                    continue
                }
                payloads.append(Array(payload))
            }
            return Contents(payloads: payloads, damage: scan.damage, headerIDs: headerIDs)
        }
    }

    private static let headerPrefix = Array(#"{"sdl_batch":"#.utf8)
    private static let idField = Array(#""id":""#.utf8)

    /// The header's `id` value as written (the 36 characters after `"id":"`); nil when absent.
    private static func headerID(_ payload: UnsafeRawBufferPointer) -> String? {
        let bytes = Array(payload)
        guard bytes.count >= idField.count + 36 else { return nil }
        for start in 0...(bytes.count - idField.count - 36) where bytes[start..<(start + idField.count)].elementsEqual(idField) {
            return String(decoding: bytes[(start + idField.count)..<(start + idField.count + 36)], as: UTF8.self)
        }
        return nil
    }

    private static func isHeader(_ payload: UnsafeRawBufferPointer) -> Bool {
        payload.count >= headerPrefix.count && zip(payload, headerPrefix).allSatisfy { $0 == $1 }
    }
}
