import SimpleDataLogs

/// One `--prop key=value` of `sdl send`, typed the way a shell user means it.
enum PropertyArgument {
    /// `true`/`false` as a bool, an integer as an integer, a number as a number, anything else
    /// (including an empty value) as a string. Quote nothing: the shell already did.
    /// - Parameter argument: `key=value`; the first `=` splits, so a value may hold more.
    /// - Returns: The key and its typed value.
    /// - Throws: ``UsageError`` when there is no `=` or the key is empty.
    static func parse(_ argument: String) throws(UsageError) -> (key: String, value: PropertyValue) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw UsageError(
                "--prop needs key=value, not \(argument).",
                hint: "Type, for example, `sdl send build_finished --prop target=ios --prop seconds=41.5`."
            )
        }
        let key = String(argument[..<equals])
        let text = String(argument[argument.index(after: equals)...])
        return (key, value(text))
    }

    /// The typed value of `text`.
    static func value(_ text: String) -> PropertyValue {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: break
        }
        if let integer = Int64(text) { return .int(integer) }
        // Only plain decimal numbers: "nan", "inf" and hex floats stay strings, as a user means them.
        let isDecimal = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
            && text.contains(where: \.isNumber)
        if isDecimal, let number = Double(text), number.isFinite { return .double(number) }
        return .string(text)
    }
}
