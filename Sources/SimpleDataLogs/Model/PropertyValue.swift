/// One property value of an event: a string, an integer, a double or a boolean.
///
/// Literals of all four kinds work directly, so a dictionary literal reads naturally:
///
/// ```swift
/// SimpleDataLogs.track("export_finished", properties: ["format": "png", "duration_ms": 412, "is_pro": true])
/// ```
///
/// A ``double(_:)`` that is NaN or infinite is dropped (the property, not the event) before the
/// event is stamped, because the ingest accepts only finite numbers.
public enum PropertyValue: Sendable, Hashable {
    /// A UTF-8 string of at most 8,192 bytes (longer ones are cut on a character boundary).
    case string(String)
    /// A signed 64-bit integer.
    case int(Int64)
    /// A finite floating-point number.
    case double(Double)
    /// A boolean.
    case bool(Bool)
}

extension PropertyValue: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)`` value from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyValue: ExpressibleByIntegerLiteral {
    /// Creates an ``int(_:)`` value from an integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension PropertyValue: ExpressibleByFloatLiteral {
    /// Creates a ``double(_:)`` value from a floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension PropertyValue: ExpressibleByBooleanLiteral {
    /// Creates a ``bool(_:)`` value from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PropertyValue: CustomStringConvertible {
    /// The value as it reads in a log line or the local ingest's output.
    public var description: String {
        switch self {
        case .string(let value): return "\"\(value)\""
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        }
    }
}
