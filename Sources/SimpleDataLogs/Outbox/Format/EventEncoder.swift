import Foundation

/// Writes an event as the JSON object the ingest expects (INGEST-API.md), by hand.
///
/// `JSONEncoder` costs about 9 µs per event here; appending bytes costs well under 1 µs, and the
/// journal stores exactly these bytes, so the uploader sends them without re-encoding.
package enum EventEncoder {
    /// Appends `event` as one JSON object to `buffer`.
    package static func encode(_ event: Event, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: #"{"event":"#.utf8)
        appendString(event.name, to: &buffer)
        buffer.append(contentsOf: #","event_id":""#.utf8)
        appendLowercaseUUID(event.id, to: &buffer)
        buffer.append(contentsOf: #"","ts":"#.utf8)
        appendInteger(event.timestamp, to: &buffer)
        if let deviceID = event.deviceID {
            buffer.append(contentsOf: #","device_id":"#.utf8)
            appendString(deviceID, to: &buffer)
        }
        if let sessionID = event.sessionID {
            buffer.append(contentsOf: #","session_id":"#.utf8)
            appendString(sessionID, to: &buffer)
        }
        if let appState = event.appState {
            buffer.append(contentsOf: #","app_state":""#.utf8)
            buffer.append(contentsOf: appState.rawValue.utf8)
            buffer.append(UInt8(ascii: "\""))
        }
        if let engaged = event.engagedMilliseconds {
            buffer.append(contentsOf: #","engaged_ms":"#.utf8)
            appendInteger(engaged, to: &buffer)
        }
        if !event.properties.isEmpty {
            buffer.append(contentsOf: #","props":{"#.utf8)
            var first = true
            for (key, value) in event.properties {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                appendString(key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                appendValue(value, to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// The event as a standalone byte array.
    package static func encode(_ event: Event) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(256)
        encode(event, into: &buffer)
        return buffer
    }

    static func appendValue(_ value: PropertyValue, to buffer: inout [UInt8]) {
        switch value {
        case .string(let string): appendString(string, to: &buffer)
        case .int(let integer): appendInteger(integer, to: &buffer)
        case .bool(let bool): buffer.append(contentsOf: (bool ? "true" : "false").utf8)
        case .double(let double): appendDouble(double, to: &buffer)
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped; everything else,
    /// non-ASCII included, as its UTF-8 bytes.
    static func appendString(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): buffer.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): buffer.append(contentsOf: #"\\"#.utf8)
                case 0x0A: buffer.append(contentsOf: #"\n"#.utf8)
                case 0x0D: buffer.append(contentsOf: #"\r"#.utf8)
                case 0x09: buffer.append(contentsOf: #"\t"#.utf8)
                default:
                    buffer.append(contentsOf: #"\u00"#.utf8)
                    buffer.append(hexDigits[Int(byte >> 4)])
                    buffer.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// A base-10 integer without going through `String`.
    static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        if value == 0 { buffer.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            while magnitude > 0 {
                digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            while count > 0 {
                count -= 1
                buffer.append(digits[count])
            }
        }
    }

    /// A finite double, shortest round-trip form. Swift prints `1e-05` and `5.0`, both valid JSON.
    /// Non-finite values never get here (the validator drops them); `0` is the safe fallback.
    static func appendDouble(_ value: Double, to buffer: inout [UInt8]) {
        guard value.isFinite else { buffer.append(UInt8(ascii: "0")); return }
        buffer.append(contentsOf: value.description.utf8)
    }

    /// A UUID as 36 lowercase characters (the ids Foundation prints are uppercase).
    static func appendLowercaseUUID(_ id: UUID, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: id.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { buffer.append(UInt8(ascii: "-")) }
                buffer.append(hexDigits[Int(byte >> 4)])
                buffer.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    /// A UUID as a lowercase string.
    static func lowercaseString(_ id: UUID) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(36)
        appendLowercaseUUID(id, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
