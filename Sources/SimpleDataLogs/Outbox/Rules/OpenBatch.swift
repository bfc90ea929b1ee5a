import Foundation

/// The batch being filled, as a value: its sequence and id, its events' payloads, the framed
/// records not yet written to its journal file, and the sequence numbers after it.
///
/// Its events are in the journal file `journal-<sequence>.log`, written in the batch file format
/// (a header with ``id``, then the records), so that sealing it is a flush and a rename.
/// ``OutboxActor`` keeps one and does the file work; `OpenBatchTests` drives it without files.
struct OpenBatch: Sendable {
    /// Its sequence number (its journal's name and its place in the queue).
    private(set) var sequence = 0
    /// Its id, in the journal's header and the sealed batch's file name.
    private(set) var id = UniqueID.random()
    /// Its events, encoded, oldest first.
    private(set) var payloads: [[UInt8]] = []
    /// The sum of their sizes.
    private(set) var payloadBytes = 0
    /// Framed records appended since the last journal write.
    private(set) var unwrittenRecords: [UInt8] = []
    /// How many records ``unwrittenRecords`` holds.
    private var unwrittenCount = 0
    /// The sequence the next batch gets.
    private(set) var nextSequence = 1

    /// Whether it holds no event.
    var isEmpty: Bool { payloads.isEmpty }

    /// What the caps count for it: its events, its records' bytes, and its journal file.
    var usage: OutboxCaps.Usage {
        OutboxCaps.Usage(events: payloads.count, bytes: payloadBytes + payloads.count * JournalRecord.headerSize, files: isEmpty ? 0 : 1)
    }

    /// Whether it must be sealed before an event of `payloadBytes` joins it (the body would pass
    /// the policy's limit; an empty batch takes any event).
    func mustSealBefore(adding payloadBytes: Int, policy: SealPolicy) -> Bool {
        policy.mustSealBefore(adding: payloadBytes, openCount: payloads.count, openPayloadBytes: self.payloadBytes)
    }

    /// Adds one event.
    /// - Returns: Whether it is the batch's first event (its age starts now) and whether the
    ///   batch is now full.
    mutating func append(_ payload: [UInt8], policy: SealPolicy) -> (isFirst: Bool, isFull: Bool) {
        let isFirst = payloads.isEmpty
        JournalRecord.append(payload: payload, to: &unwrittenRecords)
        unwrittenCount += 1
        payloads.append(payload)
        payloadBytes += payload.count
        return (isFirst, policy.isFull(openCount: payloads.count))
    }

    /// Hands the records to write now to `write`; afterwards none is unwritten, whether it
    /// threw or not (a failed write is retried by rewriting the whole file). With `wholeFile`
    /// (a new journal file), the header and every record of the batch instead.
    ///
    /// The buffer is lent, not returned, so its storage is reused batch after batch.
    mutating func writeUnwritten<Failure: Error>(wholeFile: Bool, _ write: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        defer { forgetUnwritten() }
        guard wholeFile else { return try write(unwrittenRecords) }
        if unwrittenCount == payloads.count {
            // The usual case, a batch's first write: every record is still unwritten, and
            // already framed; only the header goes in front (no record is framed twice).
            var image = BatchFile.header(id: id, sequence: sequence, path: "r")
            image.append(contentsOf: unwrittenRecords)
            try write(image)
        } else {
            try write(journalImage())
        }
    }

    /// Drops the unwritten records without writing them (no folder to write to).
    mutating func forgetUnwritten() {
        unwrittenRecords.removeAll(keepingCapacity: true)
        unwrittenCount = 0
    }

    /// The whole journal file for this batch: its header, then every record.
    func journalImage() -> [UInt8] {
        var image = BatchFile.header(id: id, sequence: sequence, path: "r")
        for payload in payloads { JournalRecord.append(payload: payload, to: &image) }
        return image
    }

    /// Closes the batch: returns it as a sealed batch and starts the next one.
    mutating func seal() -> SealedBatch {
        let batch = SealedBatch(id: id, sequence: sequence, path: "r", payloads: payloads)
        payloads.removeAll(keepingCapacity: true)
        payloadBytes = 0
        forgetUnwritten()
        sequence = nextSequence
        id = UniqueID.random()
        nextSequence += 1
        return batch
    }

    /// Drops every event (the opt-out); the batch keeps its sequence.
    mutating func discard() {
        payloads.removeAll()
        payloadBytes = 0
        unwrittenRecords.removeAll()
        unwrittenCount = 0
    }

    /// Makes sure the next sequence handed out is above `sequence` (recovery found it on disk).
    mutating func reserve(above sequence: Int) {
        nextSequence = max(nextSequence, sequence + 1)
    }

    /// Moves the batch and the sequences after it `offset` up (a folder taken late: what it held
    /// keeps its numbers; see ``OutboxQueue/moveHeldBatches(up:)``). Its journal is written
    /// afresh under the new number, so no file of the old one is left to rename.
    mutating func moveUp(by offset: Int) {
        guard offset > 0 else { return }
        sequence += offset
        nextSequence += offset
    }

    /// Starts the open batch at the next free sequence (after recovery).
    mutating func startAtNextSequence() {
        sequence = nextSequence
        nextSequence += 1
    }
}
