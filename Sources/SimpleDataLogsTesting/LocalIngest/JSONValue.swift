/// A parsed JSON value, with integers kept apart from other numbers.
///
/// The ingest contract distinguishes an integer (signed 64-bit) from a finite number, and
/// `JSONSerialization` blurs that line on Linux, so the local ingest reads JSON itself.
enum JSONValue: Sendable, Equatable {
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

    /// The value as a string, if it is one.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an integer, if it was written as one and fits in `Int64`.
    var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// A short name of the value's kind, for rejection reasons.
    var kindName: String {
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
