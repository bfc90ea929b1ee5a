import Foundation

extension PropertyValue {
    /// Converts a loosely typed value, for code coming from Firebase or another `[String: Any]` API.
    ///
    /// Swift strings, integers of every width, floating-point numbers and booleans convert to the
    /// matching case. Foundation numbers keep their real kind on every platform: a boxed `Bool`
    /// (`NSNumber(value: true)`) stays a boolean and a boxed integer stays an integer. Anything
    /// else (dates, arrays, `nil`, an unsigned integer above `Int64.max`) returns `nil`:
    ///
    /// ```swift
    /// SimpleDataLogs.track(name, properties: parameters.compactMapValues(PropertyValue.init(bridging:)))
    /// ```
    ///
    /// - Parameter value: Any value.
    /// - Returns: The property value, or `nil` when `value` has no faithful representation.
    public init?(bridging value: Any) {
        // Concrete Swift types first: on Linux an `Int` is not an `NSNumber`, and on Apple a cast
        // to `Bool` would also accept the numbers 0 and 1, so order matters.
        switch value {
        case let number as NSNumber where Self.isFoundationNumber(value):
            guard let converted = Self(number: number) else { return nil }
            self = converted
        case let string as String: self = .string(string)
        case let string as Substring: self = .string(String(string))
        case let bool as Bool: self = .bool(bool)
        case let int as Int: self = .int(Int64(int))
        case let int as Int8: self = .int(Int64(int))
        case let int as Int16: self = .int(Int64(int))
        case let int as Int32: self = .int(Int64(int))
        case let int as Int64: self = .int(int)
        case let uint as UInt: guard let v = Int64(exactly: uint) else { return nil }; self = .int(v)
        case let uint as UInt8: self = .int(Int64(uint))
        case let uint as UInt16: self = .int(Int64(uint))
        case let uint as UInt32: self = .int(Int64(uint))
        case let uint as UInt64: guard let v = Int64(exactly: uint) else { return nil }; self = .int(v)
        case let double as Double: self = .double(double)
        case let float as Float: self = .double(Double(float))
        case let property as PropertyValue: self = property
        default: return nil
        }
    }

    /// Whether `value` is really a Foundation number object, rather than a Swift value that an
    /// `as NSNumber` cast would box on the fly (which loses whether it was a Bool on Linux).
    private static func isFoundationNumber(_ value: Any) -> Bool {
        type(of: value) is NSNumber.Type
    }

    /// Reads an `NSNumber` by its stored kind, so that a boxed boolean and a boxed integer keep
    /// their kinds on Linux and Apple alike.
    private init?(number: NSNumber) {
        // A boxed boolean is an instance of a private subclass (`__NSCFBoolean`) on both
        // platforms; its type encoding (`c`) is shared with 8-bit integers on Apple, so the class
        // is the only reliable sign.
        if type(of: number) == booleanNumberClass { self = .bool(number.boolValue); return }
        switch String(cString: number.objCType) {
        case "c", "s", "i", "l", "q", "C", "S", "I":
            self = .int(number.int64Value)
        case "L", "Q":
            guard let value = Int64(exactly: number.uint64Value) else { return nil }
            self = .int(value)
        case "f", "d":
            self = .double(number.doubleValue)
        default:
            return nil
        }
    }
}

/// The class Foundation uses for boxed booleans, read once from a real one.
private let booleanNumberClass: NSNumber.Type = type(of: NSNumber(value: true))
