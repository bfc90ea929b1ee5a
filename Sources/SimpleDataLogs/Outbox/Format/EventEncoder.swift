import Foundation

/// Writes an event as the JSON object the ingest expects (INGEST-API.md), by hand.
///
/// `JSONEncoder` costs about 9 µs per event here; writing bytes costs well under 1 µs, and the
/// journal stores exactly these bytes, so the uploader sends them without re-encoding. The bytes
/// go through a ``JSONByteWriter`` into room sized by ``maximumSize(of:)``, a true upper bound.
package enum EventEncoder {
    /// Appends `event` as one JSON object to `buffer`.
    package static func encode(_ event: Event, into buffer: inout [UInt8]) {
        var room = maximumSize(of: event)
        while true {
            let done: Bool = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { scratch in
                var writer = JSONByteWriter(scratch)
                write(event, to: &writer)
                guard !writer.overflowed else { return false }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<writer.count]))
                return true
            }
            if done { return }
            room *= 2 // never with a true bound; a wrong one costs a second try, not a crash
        }
    }

    /// The event as a standalone byte array, written in place (the journal keeps one per event).
    package static func encode(_ event: Event) -> [UInt8] {
        var room = maximumSize(of: event)
        while true {
            var overflowed = false
            let bytes = [UInt8](unsafeUninitializedCapacity: room) { storage, count in
                var writer = JSONByteWriter(storage)
                write(event, to: &writer)
                overflowed = writer.overflowed
                count = overflowed ? 0 : writer.count
            }
            if !overflowed { return bytes }
            room *= 2
        }
    }

    /// An upper bound of the encoded size: every string byte may become a 6-byte `\u00XX`, an
    /// integer takes at most 20 bytes, a double's shortest form at most 24 (32 counted), each
    /// field's name and punctuation are counted in full, plus slack.
    static func maximumSize(of event: Event) -> Int {
        var size = 96 + 6 &* event.name.utf8.count + 36 + 20
        if let deviceID = event.deviceID { size &+= 16 &+ 6 &* deviceID.utf8.count }
        if let sessionID = event.sessionID { size &+= 16 &+ 6 &* sessionID.utf8.count }
        if event.appState != nil { size &+= 32 }
        if event.engagedMilliseconds != nil { size &+= 40 }
        if !event.properties.isEmpty {
            size &+= 16
            for (key, value) in event.properties {
                size &+= 4 &+ 6 &* key.utf8.count
                switch value {
                case .string(let string): size &+= 2 &+ 6 &* string.utf8.count
                case .int: size &+= 20
                case .double: size &+= 32
                case .bool: size &+= 5
                }
            }
        }
        return size
    }

    private static func write(_ event: Event, to writer: inout JSONByteWriter) {
        writer.writeLiteral(#"{"event":"#)
        writer.writeString(event.name)
        writer.writeLiteral(#","event_id":""#)
        writer.writeLowercaseUUID(event.id)
        writer.writeLiteral(#"","ts":"#)
        writer.writeInteger(event.timestamp)
        if let deviceID = event.deviceID {
            writer.writeLiteral(#","device_id":"#)
            writer.writeString(deviceID)
        }
        if let sessionID = event.sessionID {
            writer.writeLiteral(#","session_id":"#)
            writer.writeString(sessionID)
        }
        if let appState = event.appState {
            switch appState {
            case .active: writer.writeLiteral(#","app_state":"active""#)
            case .background: writer.writeLiteral(#","app_state":"background""#)
            }
        }
        if let engaged = event.engagedMilliseconds {
            writer.writeLiteral(#","engaged_ms":"#)
            writer.writeInteger(engaged)
        }
        if !event.properties.isEmpty {
            writer.writeLiteral(#","props":{"#)
            var first = true
            for (key, value) in event.properties {
                if !first { writer.write(UInt8(ascii: ",")) }
                first = false
                writer.writeString(key)
                writer.write(UInt8(ascii: ":"))
                switch value {
                case .string(let string): writer.writeString(string)
                case .int(let integer): writer.writeInteger(integer)
                case .bool(let bool): writer.writeLiteral(bool ? "true" : "false")
                case .double(let double): writer.writeDouble(double)
                }
            }
            writer.write(UInt8(ascii: "}"))
        }
        writer.write(UInt8(ascii: "}"))
    }

    /// A UUID as a lowercase string.
    static func lowercaseString(_ id: UUID) -> String {
        var bytes = [UInt8](repeating: 0, count: 36)
        bytes.withUnsafeMutableBufferPointer { room in
            var writer = JSONByteWriter(room)
            writer.writeLowercaseUUID(id)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
