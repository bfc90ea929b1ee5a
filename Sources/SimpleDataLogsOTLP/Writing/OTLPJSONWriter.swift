/// Appends JSON text to a byte buffer, by hand: the few shapes an OTLP logs request needs.
///
/// Why by hand: `JSONEncoder` costs microseconds per value, and a batch of 1,000 events has some
/// 10,000 values; bytes appended to one growing array cost a fraction of that.
struct OTLPJSONWriter {
    /// The text so far.
    private(set) var bytes: [UInt8] = []

    /// Creates an empty writer with room for `capacity` bytes.
    /// - Parameter capacity: The expected size of the document.
    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends text that needs no escaping (punctuation and member names).
    mutating func raw(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends bytes written earlier by another writer.
    mutating func raw(_ text: [UInt8]) { bytes.append(contentsOf: text) }

    /// Appends a JSON string: quotes, with `"`, `\` and control characters escaped.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): raw(#"\""#)
                case UInt8(ascii: "\\"): raw(#"\\"#)
                case 0x0A: raw(#"\n"#)
                case 0x0D: raw(#"\r"#)
                case 0x09: raw(#"\t"#)
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    raw(#"\u00"#)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an integer as a JSON string of decimal digits: the JSON mapping's form for the
    /// 64-bit integer types (`int64`, `fixed64`), whose values a JavaScript number cannot hold.
    mutating func quotedInteger<T: BinaryInteger>(_ value: T) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: String(value).utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an integer as a bare JSON number, for the 32-bit types (`uint32`).
    mutating func integer<T: BinaryInteger>(_ value: T) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends a double: a finite one as a bare JSON number in Swift's shortest round-trip form
    /// (`0.5`, `5.0`, `1e-05`: all valid JSON numbers); NaN and the infinities as the JSON
    /// mapping's strings (`"NaN"`, `"Infinity"`, `"-Infinity"`), though the SDK sends none.
    mutating func double(_ value: Double) {
        if value.isFinite {
            bytes.append(contentsOf: value.description.utf8)
        } else if value.isNaN {
            raw(#""NaN""#)
        } else {
            value > 0 ? raw(#""Infinity""#) : raw(#""-Infinity""#)
        }
    }
}
