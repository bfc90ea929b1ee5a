import Foundation

/// Reading a call record back (``IntakeRecordCodec``): bounds-checked, never trapping; bytes that
/// do not make one whole item give nil.
extension IntakeRecordCodec {
    /// The integer property `seq` of the event `bytes` encode, if any: for the reliability
    /// driver, which counts what logs still hold and cannot see ``IntakeItem``.
    package static func seqProperty(ofEventPayload bytes: [UInt8]) -> Int64? {
        guard case .event(let event)? = decode(bytes), case .int(let seq)? = event.properties["seq"] else { return nil }
        return seq
    }

    /// The item `bytes` encode, or nil when they do not make exactly one whole item.
    static func decode(_ bytes: [UInt8]) -> IntakeItem? {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// The item the bytes at `raw` encode, or nil when they do not make exactly one whole item:
    /// read in place (the identity stage reads `track()`'s records straight from the log's
    /// mapping, with no copy).
    static func decode(_ raw: UnsafeRawBufferPointer) -> IntakeItem? {
        var reader = Reader(bytes: raw)
        guard let item = reader.item(), reader.isAtEnd else { return nil }
        return item
    }

    // MARK: Reading

    /// A bounds-checked cursor: every read that would pass the end gives nil. (The buffer's own
    /// subscript checks no bounds in release builds; every read here checks them first.)
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            defer { offset += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            for index in 0..<10 {
                guard let byte = byte() else { return nil }
                value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }

        mutating func string() -> String? {
            guard let count = varint(), count <= UInt64(bytes.count - offset) else { return nil }
            let end = offset + Int(count)
            defer { offset = end }
            let utf8 = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            // `String(validating:)` needs macOS 15 / iOS 18, and Foundation's
            // `String(bytes:encoding:)` cost the stage a third of its time per event: decoded
            // with repair, then taken only if it is an exact copy (a repaired string is not,
            // whatever its length: a record's string that was not valid UTF-8 is no whole record).
            let string = String(decoding: utf8, as: UTF8.self)
            return string.utf8.elementsEqual(utf8) ? string : nil
        }

        mutating func optionalString() -> String?? {
            switch byte() {
            case 0: return .some(nil)
            case 1: return string().map { .some($0) }
            default: return nil
            }
        }

        mutating func properties() -> [String: PropertyValue]? {
            // Each property takes at least 3 bytes: a count larger than that is garbage.
            guard let count = varint(), count <= UInt64(bytes.count - offset) / 3 else { return nil }
            var properties: [String: PropertyValue] = [:]
            properties.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let key = string(), let tag = byte() else { return nil }
                switch tag {
                case 0: guard let string = string() else { return nil }; properties[key] = .string(string)
                case 1: guard let integer = integer() else { return nil }; properties[key] = .int(Int64(truncatingIfNeeded: integer))
                case 2: guard let bits = integer() else { return nil }; properties[key] = .double(Double(bitPattern: bits))
                case 3:
                    guard let bool = byte(), bool <= 1 else { return nil }
                    properties[key] = .bool(bool == 1)
                default: return nil
                }
            }
            return properties
        }

        mutating func item() -> IntakeItem? {
            guard let raw = byte(), let kind = Kind(rawValue: raw) else { return nil }
            switch kind {
            case .event: return event().map(IntakeItem.event)
            case .setDeviceID: return optionalString().map(IntakeItem.setDeviceID)
            case .setDefaultProperties: return properties().map(IntakeItem.setDefaultProperties)
            case .setEnabled:
                guard let value = byte(), value <= 1 else { return nil }
                return .setEnabled(value == 1)
            case .reset: return optionalString().map(IntakeItem.reset)
            case .activity:
                let activity: ActivityEvent
                switch byte() {
                case 0: activity = .foreground
                case 1: activity = .background
                case 2: activity = .userInput
                default: return nil
                }
                guard let time = integer() else { return nil }
                return .activity(activity, at: Int64(truncatingIfNeeded: time))
            case .restoreIdentity:
                guard let device = optionalString(), let defaults = properties() else { return nil }
                return .restoreIdentity(deviceID: device, defaults: defaults)
            case .replayBegins: return .replayBegins
            case .replayEnds: return .replayEnds
            case .checkpoint: return nil
            }
        }

        mutating func event() -> Event? {
            guard let name = string(), bytes.count - offset >= 16 else { return nil }
            let id = EventIDWords(
                upper: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                lower: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            )
            offset += 16
            guard let timestamp = integer(), let trackedAt = integer() else { return nil }
            let origin: Event.Origin
            switch byte() {
            case 0: origin = .live
            case 1: origin = .backdated
            case 2: origin = .autocaptured
            default: return nil
            }
            guard let device = optionalString(), let properties = properties() else { return nil }
            var scoped: [String: PropertyValue]?
            switch byte() {
            case 0: scoped = nil
            case 1:
                guard let read = self.properties() else { return nil }
                scoped = read
            default: return nil
            }
            return Event(
                name: name, id: id.uuid, timestamp: Int64(truncatingIfNeeded: timestamp), trackedAt: Int64(truncatingIfNeeded: trackedAt),
                properties: properties, origin: origin, deviceIDSource: device.map(Event.DeviceIDSource.explicit) ?? .inherited,
                scopedProperties: scoped
            )
        }
    }
}
