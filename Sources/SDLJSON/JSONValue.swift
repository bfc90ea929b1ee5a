/// A parsed JSON value, with integers kept apart from other numbers.
///
/// The ingest contract distinguishes an integer (signed 64-bit) from a finite number, and
/// `JSONSerialization` blurs that line on Linux (OTLP's `AnyValue` too must say `boolValue` for
/// `true` and `intValue` for `1`), so the package reads JSON itself.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// A number written without fraction or exponent that does not fit in `Int64`; kept so the
    /// validator can reject it by name instead of silently rounding it to a double.
    case integerOutOfRange
    /// A number written with a fraction or exponent; may be infinite when the literal overflows.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `name` of an object (the last one written, when a name repeats), or `nil`.
    /// - Parameter name: The member's name.
    /// - Returns: Its value, or `nil` when this is not an object or has no such member.
    package func member(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }

    /// The value as a string, if it is one.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an integer, if it was written as one and fits in `Int64`.
    package var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// A short name of the value's kind, for rejection reasons.
    package var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .integerOutOfRange: return "an integer outside the signed 64-bit range"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
