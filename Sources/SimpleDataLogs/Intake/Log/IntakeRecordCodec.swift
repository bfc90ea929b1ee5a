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
        case .barrier, .crashRecordHandedOver, .rotateKey: nil
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
        case .barrier, .crashRecordHandedOver, .rotateKey:
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

    /// Writes `item` at `start`, which has room for `size` bytes, as ``size(of:)`` measured.
    static func write(_ item: IntakeItem, at start: UnsafeMutableRawPointer, size: Int) {
        var writer = Writer(at: start, end: start + size)
        writer.item(item)
        assert(!writer.overflowed && writer.cursor == start + size, "an item's encoding is the size measured")
    }

    @inline(__always)
    fileprivate static func varintSize(_ value: Int) -> Int {
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

    /// A cursor over room that ends at `end`. Each string, property and fixed part is checked
    /// against the room once before it is written (not each byte); one that does not fit marks
    /// the writer `overflowed`, and nothing more is written. Given room ``size(of:)`` measured,
    /// it never overflows.
    private struct Writer {
        var cursor: UnsafeMutableRawPointer
        let end: UnsafeMutableRawPointer
        private(set) var overflowed = false

        init(at start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer) {
            cursor = start
            self.end = end
        }

        /// Whether `count` more bytes fit; if not, the writer is overflowed from now on.
        @inline(__always)
        mutating func reserve(_ count: Int) -> Bool {
            guard !overflowed, end - cursor >= count else {
                overflowed = true
                return false
            }
            return true
        }

        mutating func byte(_ value: UInt8) {
            cursor.storeBytes(of: value, as: UInt8.self)
            cursor += 1
        }

        mutating func integer(_ value: UInt64) {
            cursor.storeBytes(of: value.littleEndian, as: UInt64.self)
            cursor += 8
        }

        mutating func varint(_ value: Int) {
            var rest = UInt64(value)
            while rest >= 0x80 {
                byte(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            byte(UInt8(rest))
        }

        @inline(__always)
        mutating func string(_ string: String) {
            let count = string.utf8.count
            guard reserve(IntakeRecordCodec.varintSize(count) + count) else { return }
            reserved(string, count: count)
        }

        /// Writes a string of `count` UTF-8 bytes whose room (with its length) was reserved.
        @inline(__always)
        mutating func reserved(_ string: String, count: Int) {
            varint(count)
            // Native strings hand their bytes over without a copy; others are copied once.
            let target = cursor
            let copied: Bool? = string.utf8.withContiguousStorageIfAvailable { bytes in
                if let base = bytes.baseAddress { Self.copy(count, from: UnsafeRawPointer(base), to: target) }
                return true
            }
            if copied == nil {
                for unit in string.utf8 { byte(unit) }
            } else {
                cursor += count
            }
        }

        /// Copies `count` bytes. Most strings of an event (keys, short values) are under 16
        /// bytes, where a call to `memmove` cost more than the copy: these take two overlapping
        /// loads and stores instead (measured: 8 strings of an event, 51 -> 30 ns). Never reads or
        /// writes outside the `count` bytes.
        @inline(__always)
        static func copy(_ count: Int, from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer) {
            switch count {
            case 8...16:
                let head = source.loadUnaligned(as: UInt64.self)
                let tail = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                target.storeBytes(of: head, as: UInt64.self)
                target.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
            case 4..<8:
                let head = source.loadUnaligned(as: UInt32.self)
                let tail = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                target.storeBytes(of: head, as: UInt32.self)
                target.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
            case 1..<4:
                // The first, middle and last bytes: all of them for 1 to 3, with no loop.
                let middle = count >> 1
                let first = source.load(as: UInt8.self)
                let center = source.load(fromByteOffset: middle, as: UInt8.self)
                let last = source.load(fromByteOffset: count - 1, as: UInt8.self)
                target.storeBytes(of: first, as: UInt8.self)
                target.storeBytes(of: center, toByteOffset: middle, as: UInt8.self)
                target.storeBytes(of: last, toByteOffset: count - 1, as: UInt8.self)
            case 0:
                break
            default:
                target.copyMemory(from: source, byteCount: count)
            }
        }

        mutating func optionalString(_ string: String?) {
            guard reserve(1) else { return }
            if let string {
                byte(1)
                self.string(string)
            } else {
                byte(0)
            }
        }

        mutating func properties(_ properties: [String: PropertyValue]) {
            guard reserve(IntakeRecordCodec.varintSize(properties.count)) else { return }
            varint(properties.count)
            for (key, value) in properties {
                // One room check per property (its key, tag and value), not one per part.
                let keyCount = key.utf8.count
                let keyRoom = IntakeRecordCodec.varintSize(keyCount) + keyCount
                switch value {
                case .string(let value):
                    let count = value.utf8.count
                    guard reserve(keyRoom + 1 + IntakeRecordCodec.varintSize(count) + count) else { return }
                    reserved(key, count: keyCount)
                    byte(0)
                    reserved(value, count: count)
                case .int(let value):
                    guard reserve(keyRoom + 9) else { return }
                    reserved(key, count: keyCount)
                    byte(1)
                    integer(UInt64(truncatingIfNeeded: value))
                case .double(let value):
                    guard reserve(keyRoom + 9) else { return }
                    reserved(key, count: keyCount)
                    byte(2)
                    integer(value.bitPattern)
                case .bool(let value):
                    guard reserve(keyRoom + 2) else { return }
                    reserved(key, count: keyCount)
                    byte(3)
                    byte(value ? 1 : 0)
                }
            }
        }

        mutating func event(_ event: borrowing Event) {
            guard reserve(1) else { return }
            byte(Kind.event.rawValue)
            string(event.name)
            // The id, both times, the origin and the device's flag.
            guard reserve(16 + 8 + 8 + 1 + 1) else { return }
            withUnsafeBytes(of: event.id.uuid) { cursor.copyMemory(from: $0.baseAddress!, byteCount: 16) }
            cursor += 16
            integer(UInt64(truncatingIfNeeded: event.timestamp))
            integer(UInt64(truncatingIfNeeded: event.trackedAt))
            switch event.origin {
            case .live: byte(0)
            case .backdated: byte(1)
            case .autocaptured: byte(2)
            }
            if case .explicit(let device) = event.deviceIDSource {
                byte(1)
                string(device)
            } else {
                byte(0)
            }
            properties(event.properties)
            guard reserve(1) else { return }
            if let scoped = event.scopedProperties {
                byte(1)
                properties(scoped)
            } else {
                byte(0)
            }
        }

        /// ``event(_:)`` for a live event with no device id and no scope, from its fields.
        mutating func liveEvent(name: String, id: UUID, timestamp: Int64, properties: [String: PropertyValue]) {
            guard reserve(1) else { return }
            byte(Kind.event.rawValue)
            string(name)
            guard reserve(16 + 8 + 8 + 1 + 1) else { return }
            withUnsafeBytes(of: id.uuid) { cursor.copyMemory(from: $0.baseAddress!, byteCount: 16) }
            cursor += 16
            integer(UInt64(truncatingIfNeeded: timestamp))
            integer(UInt64(truncatingIfNeeded: timestamp))
            byte(0)  // live
            byte(0)  // no device id of its own
            self.properties(properties)
            guard reserve(1) else { return }
            byte(0)  // no scope
        }

        mutating func item(_ item: IntakeItem) {
            switch item {
            case .event(let event):
                self.event(event)
            case .setDeviceID(let device):
                guard reserve(1) else { return }
                byte(Kind.setDeviceID.rawValue)
                optionalString(device)
            case .setDefaultProperties(let values):
                guard reserve(1) else { return }
                byte(Kind.setDefaultProperties.rawValue)
                properties(values)
            case .setEnabled(let enabled):
                guard reserve(2) else { return }
                byte(Kind.setEnabled.rawValue)
                byte(enabled ? 1 : 0)
            case .reset(let device):
                guard reserve(1) else { return }
                byte(Kind.reset.rawValue)
                optionalString(device)
            case .activity(let activity, let time):
                guard reserve(10) else { return }
                byte(Kind.activity.rawValue)
                switch activity {
                case .foreground: byte(0)
                case .background: byte(1)
                case .userInput: byte(2)
                }
                integer(UInt64(truncatingIfNeeded: time))
            case .restoreIdentity(let device, let defaults):
                guard reserve(1) else { return }
                byte(Kind.restoreIdentity.rawValue)
                optionalString(device)
                properties(defaults)
            case .replayBegins:
                guard reserve(1) else { return }
                byte(Kind.replayBegins.rawValue)
            case .replayEnds:
                guard reserve(1) else { return }
                byte(Kind.replayEnds.rawValue)
            case .barrier, .crashRecordHandedOver, .rotateKey:
                break
            }
        }
    }

    /// Writes a live event's record from its fields into the room from `start` to `end`, with no
    /// ``Event`` built: the bytes ``write(_:at:end:)`` writes for
    /// `Event.live(name:id:timestamp:properties:)`. For the benchmarks' measure of the log as the
    /// queue (`--only logqueue`), where `track()` would build no event.
    /// - Returns: The bytes written, or nil when the record does not fit.
    package static func writeLiveEvent(
        name: String, id: UUID, timestamp: Int64, properties: [String: PropertyValue],
        at start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer
    ) -> Int? {
        var writer = Writer(at: start, end: end)
        writer.liveEvent(name: name, id: id, timestamp: timestamp, properties: properties)
        return writer.overflowed ? nil : writer.cursor - start
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
