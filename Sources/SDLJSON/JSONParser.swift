import Foundation

/// A strict JSON parser (RFC 8259) over bytes that never traps, whatever the input: the one the
/// package's JSON readers share (the local ingest's and collector's request bodies, the OTLP
/// transport's ingest batches and collector answers). Fuzzed (`Tests/Fuzz/FuzzIngestRequest`).
///
/// Why by hand: integers must stay integers (`JSONSerialization` on Linux turns `true` and `1`
/// into look-alike `NSNumber`s), and the same code will later be fuzzed, so every path returns an
/// error instead of crashing. Nesting is capped so that a body of `[[[[…` cannot exhaust the stack.
package struct JSONParser {
    /// Why a body is not JSON; the message goes into a 400 answer.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// What is wrong.
        package var message: String
        /// The byte offset where it was noticed.
        package var offset: Int
        package var description: String { "\(message) at byte \(offset)" }
    }

    /// The deepest nesting accepted; the contract needs 3 (body, event, props).
    package static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one JSON document that spans the whole input (whitespace around it is allowed).
    /// - Parameter bytes: UTF-8 text.
    /// - Returns: The value, or the first problem found.
    package static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        var parser = JSONParser(bytes: bytes)
        do {
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.failure("unexpected bytes after the JSON value") }
            return .success(value)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(message: "\(error)", offset: parser.index))
        }
    }

    private func failure(_ message: String) -> Failure { Failure(message: message, offset: index) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth <= Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth)") }
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected byte 0x\(String(byte, radix: 16))")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("truncated literal") }
        let matches = literal.withUTF8Buffer { expected in
            expected.indices.allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw failure("invalid literal") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws -> JSONValue {
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            // A repeated member name keeps the last value, as most parsers do.
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONValue {
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws -> String {
        index += 1  // opening quote
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // Foundation's decoder returns nil for malformed UTF-8 rather than repairing it.
                guard let string = String(bytes: utf8, encoding: .utf8) else { throw failure("a string is not valid UTF-8") }
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw failure("a control character inside a string")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws {
        guard let byte = current else { throw failure("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): utf8.append(0x22)
        case UInt8(ascii: "\\"): utf8.append(0x5C)
        case UInt8(ascii: "/"): utf8.append(0x2F)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a \\u escape")
                }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a lone surrogate in a \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape") }
            utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw failure("an invalid escape")
        }
    }

    private mutating func parseHex4() throws -> UInt16 {
        guard bytes.count - index >= 4 else { throw failure("a truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a non-hex digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = current, isDigit(first) else { throw failure("a number without digits") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = current, isDigit(byte) { index += 1 }
        }
        let integerEnd = index
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = current, isDigit(byte) else { throw failure("a fraction without digits") }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, isDigit(byte) else { throw failure("an exponent without digits") }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if isInteger {
            return integer(digitsFrom: negative ? start + 1 : start, to: integerEnd, negative: negative)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // The grammar above guarantees a valid literal; an overflowing one becomes infinity.
        return .number(Double(text) ?? (negative ? -.infinity : .infinity))
    }

    /// Accumulates toward the sign so that `Int64.min` itself fits.
    private func integer(digitsFrom start: Int, to end: Int, negative: Bool) -> JSONValue {
        var value: Int64 = 0
        for position in start..<end {
            let digit = Int64(bytes[position] - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return .integerOutOfRange }
            value = next
        }
        return .integer(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
