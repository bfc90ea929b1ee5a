import Foundation

/// What the intake appends to its log, under the intake's own lock, in the order of its queue:
/// every call as it is made (``append(_:)``), and a checkpoint of the identity calls so far every
/// eighth of the ring, so that recovery can start at a checkpoint instead of at the log's first
/// record (``IntakeLogRing`` keeps the records from the newest checkpoint on).
///
/// A value held in ``IntakeState``: the intake's lock already orders every append, release, wipe
/// and close, so neither the writer nor its file has a lock of its own.
struct IntakeLogWriter: Sendable {
    private(set) var file: IntakeLogFile
    /// Slots written between checkpoints.
    let checkpointInterval: Int
    /// The identity as the app's calls left it, in queue order: what a checkpoint holds.
    private(set) var deviceID: String?
    private(set) var defaults: [String: PropertyValue] = [:]
    private var slotsSinceCheckpoint = 0
    /// The sequence number of the newest record.
    private(set) var lastSequence: UInt64?

    init(file: IntakeLogFile, slotCount: Int) {
        self.file = file
        checkpointInterval = max(1, slotCount / 8)
    }

    /// Appends one call made by the app, after a checkpoint when one is due.
    /// - Returns: false when the log is full (or closed): the caller's backlog rules apply, and
    ///   nothing was written. true for an item that is not logged (a barrier).
    mutating func append(_ item: IntakeItem) -> Bool {
        guard IntakeRecordCodec.kind(of: item) != nil else { return true }
        if slotsSinceCheckpoint >= checkpointInterval {
            // No record goes in while a due checkpoint cannot: so what the ring keeps after the
            // newest checkpoint stays within an interval, and room always comes back.
            guard write(.restoreIdentity(deviceID: deviceID, defaults: defaults), isCheckpoint: true) else { return false }
        }
        guard write(item, isCheckpoint: false) else { return false }
        switch item {
        case .setDeviceID(let id): deviceID = id
        case .reset(let id):
            deviceID = id
            defaults = [:]
        case .setDefaultProperties(let properties): defaults = properties
        default: break
        }
        return true
    }

    /// Appends an event `track()` stamped: ``append(_:)`` for `.event(event)`, encoded from the
    /// event itself (see ``IntakeRecordCodec/size(of:)-(Event)``).
    /// - Returns: false when the log is full (or closed), with nothing written.
    mutating func append(event: borrowing Event) -> Bool {
        if slotsSinceCheckpoint >= checkpointInterval {
            guard write(.restoreIdentity(deviceID: deviceID, defaults: defaults), isCheckpoint: true) else { return false }
        }
        let kind = IntakeRecordCodec.Kind.event.rawValue
        // Written straight into the room at the head, measured as it goes; measured first only
        // when it does not fit there (near the end of the ring, or the log nearly full).
        if let room = file.beginUnmeasured(), let written = IntakeRecordCodec.write(event, at: room.start, end: room.end) {
            return wrote(file.finishUnmeasured(kind: kind, payloadCount: written), payloadCount: written, isCheckpoint: false)
        }
        let size = IntakeRecordCodec.size(of: event)
        let measured = file.append(kind: kind, payloadCount: size, isCheckpoint: false) {
            IntakeRecordCodec.write(event, at: $0, size: size)
        }
        return wrote(measured, payloadCount: size, isCheckpoint: false)
    }

    /// Writes the record of the event a `track()` call's fields make at the ring's head, not yet
    /// published: the first of two steps, so that the caller can judge the backlog by the bytes
    /// written before it takes the event (``publishCall(payloadCount:)``), or leave it (nothing
    /// is claimed, and the next record overwrites it).
    /// - Returns: The payload's bytes; nil when a due checkpoint does not fit (the log is full) or
    ///   the record does not fit at the head: the caller takes the measured path
    ///   (``append(event:)``), which places it anywhere or finds the log full.
    @inline(__always)
    mutating func writeCall(
        name: String, id: EventIDWords, timestamp: Int64, trackedAt: Int64, origin: Event.Origin, deviceIDSource: Event.DeviceIDSource,
        properties: [String: PropertyValue], scoped: [String: PropertyValue]?
    ) -> Int? {
        if slotsSinceCheckpoint >= checkpointInterval {
            guard write(.restoreIdentity(deviceID: deviceID, defaults: defaults), isCheckpoint: true) else { return nil }
        }
        guard let room = file.beginUnmeasured() else { return nil }
        return IntakeRecordCodec.writeCall(
            name: name, id: id, timestamp: timestamp, trackedAt: trackedAt, origin: origin, deviceIDSource: deviceIDSource,
            properties: properties, scoped: scoped, at: room.start, end: room.end
        )
    }

    /// Publishes the record ``writeCall(name:id:timestamp:trackedAt:origin:deviceIDSource:properties:scoped:)``
    /// wrote, unsealed (``IntakeLogFile/publishUnmeasured(kind:payloadCount:)``).
    /// - Returns: Where it is, for the queue; nil when the log was closed meanwhile.
    mutating func publishCall(payloadCount: Int) -> LoggedRecord? {
        guard let record = file.publishUnmeasured(kind: IntakeRecordCodec.Kind.event.rawValue, payloadCount: payloadCount) else { return nil }
        lastSequence = record.sequence
        slotsSinceCheckpoint += IntakeLogFormat.slots(forPayload: payloadCount)
        return record
    }

    /// Frees every record up to `sequence`: the journal holds them (``IntakeLogFile/release(through:)``).
    mutating func release(through sequence: UInt64) {
        file.release(through: sequence)
    }

    /// Zeroes the released events (the opt-out; ``IntakeLogFile/wipeReleased()``).
    mutating func wipeReleased() {
        file.wipeReleased()
    }

    /// Whether the journal holds every record this log took (``IntakeLogFile/isFullyReleased``).
    var isFullyReleased: Bool { file.isFullyReleased }

    /// Lets go of the mapping: later appends fail, the file stays for the next launch.
    mutating func close() {
        file.close()
    }

    /// Writes the log's first record: a checkpoint of a fresh run's identity (none).
    /// - Returns: Whether it fit.
    mutating func start() -> Bool {
        write(.restoreIdentity(deviceID: nil, defaults: [:]), isCheckpoint: true)
    }

    /// Appends a replay of what a dead run's log held (``IntakeLogReplay``, bracketed) in one
    /// piece: no checkpoint goes between its records (a checkpoint holds the live identity, and
    /// recovery would apply it inside the brackets).
    /// - Returns: Whether it was appended; false, with nothing written, when it does not fit.
    mutating func appendSection(_ items: [IntakeItem]) -> Bool {
        let slots = items.compactMap { IntakeRecordCodec.size(of: $0).map(IntakeLogFormat.slots(forPayload:)) }
        guard file.fits(slots) else { return false }
        for item in items {
            guard write(item, isCheckpoint: false) else { return false }
        }
        return true
    }

    private mutating func write(_ item: IntakeItem, isCheckpoint: Bool) -> Bool {
        guard let kind = IntakeRecordCodec.kind(of: item), let size = IntakeRecordCodec.size(of: item) else { return true }
        let recorded = isCheckpoint ? IntakeRecordCodec.Kind.checkpoint : kind
        let appended = file.append(kind: recorded.rawValue, payloadCount: size, isCheckpoint: isCheckpoint) {
            IntakeRecordCodec.write(item, at: $0, size: size)
        }
        return wrote(appended, payloadCount: size, isCheckpoint: isCheckpoint)
    }

    /// Keeps count of what an append did. - Returns: Whether the record went in.
    private mutating func wrote(_ appended: IntakeLogFile.Append, payloadCount: Int, isCheckpoint: Bool) -> Bool {
        switch appended {
        case .written(let sequence):
            lastSequence = sequence
            let slots = IntakeLogFormat.slots(forPayload: payloadCount)
            slotsSinceCheckpoint = isCheckpoint ? 0 : slotsSinceCheckpoint + slots
            return true
        case .full, .closed:
            return false
        }
    }
}
