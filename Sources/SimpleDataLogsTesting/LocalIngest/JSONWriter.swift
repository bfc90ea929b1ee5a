/// Writes the few JSON documents the local ingest answers with.
///
/// Answers are tiny and fixed in shape, so string escaping is all that is needed; echoing a
/// client's `event_id` back must never produce invalid JSON, whatever it contains.
enum JSONWriter {
    /// `s` as a quoted JSON string.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `{"error": message}`, the body of every non-202 answer.
    static func error(_ message: String) -> String { "{\"error\":\(quoted(message))}" }
}
