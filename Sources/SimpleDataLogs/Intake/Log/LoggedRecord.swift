/// Where the intake log holds an event `track()` published (decision 0045): what the intake's
/// queue holds for it instead of an ``Event``, so that the caller neither builds nor copies one.
/// The identity stage reads the event back from the mapping (``IntakeLogFile/Mapping/takeEvent(_:)``)
/// and seals the record as it does.
///
/// Safe to read without the intake's lock: the stage drains the queue under that lock after the
/// caller published the record under it (so every byte of the record is visible to it), and the
/// record's slots are not written again until the journal holds it and the log is released
/// through it, which happens only after the stage has read it (DESIGN.md, section 11).
struct LoggedRecord: Sendable, Equatable {
    /// The record's sequence number in the log.
    var sequence: UInt64
    /// The slot it starts at.
    var slot: Int
    /// Its payload's bytes.
    var payloadCount: Int

    /// What the intake counts an event of `payloadCount` bytes in the log as against the
    /// backlog's byte bound (``Event/memoryCost``): the bytes the stages will hold for it, as
    /// the estimate `track()` makes without a log does (an event's own fields, then its
    /// encoded properties), known here once the record is written.
    static func memoryCost(payloadCount: Int) -> Int { Event.baseMemoryCost + payloadCount }
}

extension IntakeLogFile.Mapping {
    /// Reads the event `record` holds and seals the record (its checksum, then "SDLS"), off the
    /// caller's path. The event's ``Event/memoryCost`` is what the intake counted for it.
    /// Nil when the bytes are not a whole event record of that sequence number: never, unless
    /// the file was written behind the SDK's back.
    func takeEvent(_ record: LoggedRecord) -> Event? {
        let slots = IntakeLogFormat.slots(forPayload: record.payloadCount)
        guard let base, record.slot >= 0, record.payloadCount >= 0,
              IntakeLogFormat.headerSize + (record.slot + slots) * IntakeLogFormat.slotSize <= byteCount else { return nil }
        let start = base + IntakeLogFormat.headerSize + record.slot * IntakeLogFormat.slotSize
        guard UInt64(littleEndian: start.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) == record.sequence else { return nil }
        IntakeLogFormat.seal(at: start, payloadCount: record.payloadCount)
        let payload = UnsafeRawBufferPointer(start: start + IntakeLogFormat.recordHeaderSize, count: record.payloadCount)
        guard case .event(var event)? = IntakeRecordCodec.decode(payload) else { return nil }
        event.memoryCost = LoggedRecord.memoryCost(payloadCount: record.payloadCount)
        return event
    }
}
