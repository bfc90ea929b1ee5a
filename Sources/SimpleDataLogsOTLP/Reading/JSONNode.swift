/// A JSON value read by ``JSONNodeReader``, with integers kept apart from other numbers and object
/// members in the order they were written.
///
/// Why not `JSONSerialization`: on Linux it turns `true` and `1` into look-alike `NSNumber`s, and
/// OTLP's `AnyValue` must say `boolValue` for one and `intValue` for the other. Why not
/// `JSONDecoder`: a property's type is only known from how its number was written.
enum JSONNode: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// Any other number (with a fraction or an exponent, or an integer beyond `Int64`).
    case number(Double)
    case string(String)
    case array([JSONNode])
    /// The members in the order written; a repeated name keeps both (the reader of the object
    /// decides, see ``member(_:)``).
    case object([(key: String, value: JSONNode)])

    /// The last member named `name` of an object (as JavaScript reads a repeated name), or `nil`.
    /// - Parameter name: The member's name.
    /// - Returns: Its value, or `nil` when this is not an object or has no such member.
    func member(_ name: String) -> JSONNode? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == name }?.value
    }

    static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: return false
        }
    }
}
