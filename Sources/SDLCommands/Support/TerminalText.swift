/// Text from the disk made safe to print on a terminal.
///
/// A file name may hold any byte but `/` and NUL: one planted in an outbox folder could hold an
/// escape sequence (`ESC ] 0 ; … BEL` retitles the window, others rewrite the screen or, on some
/// terminals, answer back as if typed). Every name, path and recorded value the commands print is
/// passed through ``escaped(_:)`` first.
package enum TerminalText {
    /// `text` with every control character (C0, DEL, C1), every invisible format character (the
    /// bidirectional overrides among them, which reorder what is shown) and every line or
    /// paragraph separator written as `\x1B` or `\u{202E}`, and `\` as `\\`, so that the escaped
    /// form cannot be mistaken for the name itself.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                result += scalar.value < 0x80 ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
            default:
                if scalar == "\\" { result += "\\\\" } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
