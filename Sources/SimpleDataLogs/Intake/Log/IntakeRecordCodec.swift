package import Foundation

/// The compact binary form of one intake call, as the intake log holds it (issue 25): an event
/// as `track()` stamped it, a call that shapes later events (`setDeviceID`,
/// `setDefaultProperties`, `setEnabled`, `reset`, an activity report), or one of the log's own
/// items (a checkpoint of the identity, a replay's brackets).
///
/// Binary, not the journal's JSON: the encoding runs on `track()`'s path, and copying UTF-8 with a
/// length in front is far cheaper than escaping it. Barriers and crash-record hand-overs are not
/// logged: they mean nothing to another process. Decoding never traps: bytes that do not make a
/// whole item give nil (a record the log's checksum passed can still come from another version).
///
/// ```
/// item      := kind:u8 body
/// event     := name:str id:16 timestamp:i64 trackedAt:i64 origin:u8 device:(0 | 1 str)
///              properties:props scoped:(0 | 1 props)
/// restore   := device:(0 | 1 str) defaults:props          (kind 7; kinds 8 and 9 have no body)
/// props     := count:varint (key:str value)*
/// value     := 0 str | 1 i64 | 2 f64 | 3 (0 | 1)
/// str       := count:varint utf8
/// varint    := LEB128, at most 10 bytes; integers little-endian
/// ```
package enum IntakeRecordCodec {
    /// The record kinds (the log record's `kind` byte and the item's first byte).
    package enum Kind: UInt8, Sendable {
        case event = 1
        case setDeviceID = 2
        case setDefaultProperties = 3
        case setEnabled = 4
        case reset = 5
        case activity = 6
        /// A checkpoint, or a replay's starting identity (``IntakeItem/restoreIdentity(deviceID:defaults:)``).
        case restoreIdentity = 7
        case replayBegins = 8
        case replayEnds = 9
        /// A checkpoint: a ``IntakeItem/restoreIdentity(deviceID:defaults:)`` the writer put
        /// between live calls (never inside a replay), where recovery may start. Only the log
        /// record's kind says so; the payload is a restore's.
        case checkpoint = 10
    }

    /// The record kind `item` is logged under, or nil for an item that is not logged.
    static func kind(of item: IntakeItem) -> Kind? {
        switch item {
        case .event: .event
        case .setDeviceID: .setDeviceID
        case .setDefaultProperties: .setDefaultProperties
        case .setEnabled: .setEnabled
        case .reset: .reset
        case .activity: .activity
        case .restoreIdentity: .restoreIdentity
        case .replayBegins: .replayBegins
        case .replayEnds: .replayEnds
        case .barrier, .crashRecordHandedOver, .rotateKey, .logged: nil
        }
    }

    /// Appends `item`'s encoding to `buffer`; false (and nothing appended) for an item that is
    /// not logged (a barrier, a crash record's hand-over).
    @discardableResult
    static func encode(_ item: IntakeItem, into buffer: inout [UInt8]) -> Bool {
        guard let size = size(of: item) else { return false }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: size))
        buffer.withUnsafeMutableBytes { raw in write(item, at: raw.baseAddress! + start, size: size) }
        return true
    }

    /// The bytes `item` encodes to, or nil for an item that is not logged. Written in two passes
    /// (the size, then the bytes straight into place) so that encoding never grows an array byte
    /// by byte: the log hands the record's slots to ``write(_:at:size:)``.
    static func size(of item: IntakeItem) -> Int? {
        switch item {
        case .event(let event):
            return size(of: event)
        case .setDeviceID(let device), .reset(let device):
            return 2 + (device.map(stringSize) ?? 0)
        case .setDefaultProperties(let properties):
            return 1 + propertiesSize(properties)
        case .setEnabled:
            return 2
        case .activity:
            return 1 + 1 + 8
        case .restoreIdentity(let device, let defaults):
            return 2 + (device.map(stringSize) ?? 0) + propertiesSize(defaults)
        case .replayBegins, .replayEnds:
            return 1
        case .barrier, .crashRecordHandedOver, .rotateKey, .logged:
            return nil
        }
    }

    /// The bytes an event's record encodes to: ``size(of:)-(IntakeItem)`` for `.event(event)`,
    /// without wrapping the event in an item (`track()`'s path: the wrapping copied every field,
    /// a retain and a release each, about a third of the log's cost per call).
    static func size(of event: borrowing Event) -> Int {
        var size = 1 + stringSize(event.name) + 16 + 8 + 8 + 1 + 1 + propertiesSize(event.properties) + 1
        if case .explicit(let device) = event.deviceIDSource { size += stringSize(device) }
        if let scoped = event.scopedProperties { size += propertiesSize(scoped) }
        return size
    }

    /// Writes an event's record at `start`, which has room for `size` bytes, as
    /// ``size(of:)-(Event)`` measured.
    static func write(_ event: borrowing Event, at start: UnsafeMutableRawPointer, size: Int) {
        var writer = Writer(at: start, end: start + size)
        writer.event(event)
        assert(!writer.overflowed && writer.cursor == start + size, "an event's encoding is the size measured")
    }

    /// Writes an event's record into the room from `start` to `end`, without measuring it first
    /// (`track()`'s path: the measuring walk of the properties cost as much as writing them).
    /// - Returns: The bytes written, or nil when the record does not fit (what was written is
    ///   no record: the caller measures it and finds room elsewhere).
    package static func write(_ event: borrowing Event, at start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer) -> Int? {
        var writer = Writer(at: start, end: end)
        writer.event(event)
        return writer.overflowed ? nil : writer.cursor - start
    }

    /// Writes the record of the event a `track()` call's fields make into the room from `start`
    /// to `end`, with no ``Event`` built: the bytes ``write(_:at:end:)`` writes for that event.
    /// - Returns: The bytes written, or nil when the record does not fit.
    @inline(__always)
    static func writeCall(
        name: String, id: EventIDWords, timestamp: Int64, trackedAt: Int64, origin: Event.Origin, deviceIDSource: Event.DeviceIDSource,
        properties: [String: PropertyValue], scoped: [String: PropertyValue]?, at start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer
    ) -> Int? {
        var writer = Writer(at: start, end: end)
        writer.call(
            name: name, id: id, timestamp: timestamp, trackedAt: trackedAt, origin: origin, deviceIDSource: deviceIDSource,
            properties: properties, scoped: scoped
        )
        return writer.overflowed ? nil : writer.cursor - start
    }

    /// Writes `item` at `start`, which has room for `size` bytes, as ``size(of:)`` measured.
    static func write(_ item: IntakeItem, at start: UnsafeMutableRawPointer, size: Int) {
        var writer = Writer(at: start, end: start + size)
        writer.item(item)
        assert(!writer.overflowed && writer.cursor == start + size, "an item's encoding is the size measured")
    }

    @inline(__always)
    static func varintSize(_ value: Int) -> Int {
        var size = 1
        var rest = UInt64(value) >> 7
        while rest > 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    private static func stringSize(_ string: String) -> Int {
        let count = string.utf8.count
        return varintSize(count) + count
    }

    private static func propertiesSize(_ properties: [String: PropertyValue]) -> Int {
        var size = varintSize(properties.count)
        for (key, value) in properties {
            size += stringSize(key) + 1
            switch value {
            case .string(let string): size += stringSize(string)
            case .int, .double: size += 8
            case .bool: size += 1
            }
        }
        return size
    }

    /// Appends a live event's record to `buffer`: for the benchmarks, which cannot see
    /// ``IntakeItem``.
    package static func encodeLiveEvent(name: String, id: UUID, timestamp: Int64, properties: [String: PropertyValue], into buffer: inout [UInt8]) {
        // The event's own path, as `track()` logs it, not ``encode(_:into:)``'s through an item.
        let event = Event.live(name: name, id: id, timestamp: timestamp, properties: properties)
        let size = size(of: event)
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: size))
        buffer.withUnsafeMutableBytes { raw in write(event, at: raw.baseAddress! + start, size: size) }
    }
}
