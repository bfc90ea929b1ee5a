/// The crash record file, written at the crash and read at the next launch.
///
/// ## Format, version 1
///
/// ASCII text, one field per line. Every line ends with one line feed (`0x0A`); fields inside a
/// line are separated by one space (`0x20`); numbers are decimal (`-`, `0`–`9`) or, after `0x`,
/// lowercase hexadecimal without leading zeros. The file is created empty (mode 0600) when the
/// recorder is installed and written only at the crash, so an empty file means "no crash".
///
/// ```
/// SDLCRASH 1\n                                  magic and version; always the first line
/// signal <number> <NAME>\n                      the signal, e.g. "signal 4 SIGILL" (the platform's
///                                               number: SIGBUS is 7 on Linux, 10 on Apple)
/// code <number>\n                               siginfo's si_code (may be negative)
/// address 0x<hex>\n                             siginfo's si_addr; only for a fault the kernel
///                                               raised (0 < code < 0x10000), not a kill or abort
/// pc 0x<hex>\n                                  the interrupted instruction; absent when unknown
/// frame 0x<hex>\n                               one per return address from backtrace(3),
///                                               innermost first (the handler's own frames
///                                               included; the reader drops those above `pc`),
///                                               at most 128
/// module 0x<start> 0x<end> <identity> <path>\n
///                                               one per image with executable code, at install.
///                                               Linux: from /proc/self/maps, the lowest and
///                                               highest address of its mappings, identity
///                                               `<dev>:<inode>`. Apple: dyld's image list, the
///                                               `__TEXT` range, identity the LC_UUID in hex.
///                                               Then the path (the rest of the line; may
///                                               contain spaces)
/// exception <text>\n                            Apple: the NSException's name
/// reason <text>\n                               Apple: its reason
/// symbol <text>\n                               Apple: one per callStackSymbols line
/// end\n                                         the record is complete
/// ```
///
/// `<text>` is UTF-8 with `\` written as `\\`, line feed as `\n` and carriage return as `\r`.
/// The signal handler (`CSignals`) writes the lines in the order shown, in three `write(2)`
/// calls: the header and frames, the module lines (formatted at install), then `end`. An
/// exception record is written whole by ``FatalSignalRecorder/recordException(name:reason:symbols:)``.
///
/// ## Reading
///
/// A reader never fails: a record cut short (no `end`, or a last line without its line feed,
/// which is ignored) or with unknown or malformed lines gives what could be read. Unknown line
/// kinds are skipped, so later versions can add lines.
struct CrashRecord: Sendable, Hashable {
    /// One mapped file with executable code, as the crashed process saw it.
    struct Module: Sendable, Hashable {
        /// The lowest address of the file's mappings (its load base).
        var start: UInt
        /// The end of its highest mapping.
        var end: UInt
        /// `<dev>:<inode>` as /proc/self/maps shows them: tells a rebuilt file from the same one.
        var identity: String
        /// The file's path.
        var path: String
    }

    var version: Int?
    var signal: Int32?
    var signalName: String?
    var code: Int32?
    var address: UInt?
    var pc: UInt?
    var frames: [UInt] = []
    var modules: [Module] = []
    var exceptionName: String?
    var reason: String?
    var symbols: [String] = []
    /// Whether the `end` line was read.
    var isComplete = false

    /// The first line of every record.
    static let magic = "SDLCRASH 1"
    /// The most frames the handler records.
    static let maxFrames = 128
}

extension CrashRecord {
    /// Reads a record's bytes.
    /// - Parameter bytes: The file's contents.
    /// - Returns: The record, or nil when `bytes` is empty (the recorder was installed and the
    ///   process did not crash).
    static func parse(_ bytes: some Collection<UInt8>) -> CrashRecord? {
        guard !bytes.isEmpty else { return nil }
        var record = CrashRecord()
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The last piece follows the last line feed: empty for a whole record, a cut line otherwise.
        for line in lines.dropLast() {
            let text = String(decoding: line, as: UTF8.self)
            let (kind, value) = split(text)
            switch kind {
            case "SDLCRASH": record.version = Int(value)
            case "signal":
                let (number, name) = split(value)
                record.signal = Int32(number)
                record.signalName = name.isEmpty ? nil : name
            case "code": record.code = Int32(value)
            case "address": record.address = hex(value)
            case "pc": record.pc = hex(value)
            case "frame": if let address = hex(value) { record.frames.append(address) }
            case "module": if let module = parseModule(value) { record.modules.append(module) }
            case "exception": record.exceptionName = unescape(value)
            case "reason": record.reason = unescape(value)
            case "symbol": record.symbols.append(unescape(value))
            case "end": record.isComplete = true
            default: continue
            }
        }
        return record
    }

    /// `0x<start> 0x<end> <dev>:<inode> <path>`.
    private static func parseModule(_ value: String) -> Module? {
        let parts = value.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let start = hex(String(parts[0])), let end = hex(String(parts[1])), start < end, !parts[3].isEmpty else {
            return nil
        }
        return Module(start: start, end: end, identity: String(parts[2]), path: String(parts[3]))
    }

    /// Splits at the first space.
    private static func split(_ text: String) -> (String, String) {
        guard let space = text.firstIndex(of: " ") else { return (text, "") }
        return (String(text[..<space]), String(text[text.index(after: space)...]))
    }

    /// `0x` followed by hexadecimal digits.
    static func hex(_ text: String) -> UInt? {
        guard text.hasPrefix("0x"), text.count > 2 else { return nil }
        return UInt(text.dropFirst(2), radix: 16)
    }
}

extension CrashRecord {
    /// Escapes a `<text>` field.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Reverses ``escape(_:)``; an unknown escape is kept as it stands.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                switch scalar {
                case "n": result += "\n"
                case "r": result += "\r"
                case "\\": result += "\\"
                default: result += "\\"; result.unicodeScalars.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        if escaping { result += "\\" }
        return result
    }

    /// The `module` lines for a module map, as the handler writes them.
    static func moduleLines(_ modules: [Module]) -> String {
        modules.map { "module 0x\(String($0.start, radix: 16)) 0x\(String($0.end, radix: 16)) \($0.identity) \($0.path)\n" }.joined()
    }

    /// A record of an uncaught exception (Apple), complete.
    static func exceptionRecord(name: String, reason: String, symbols: [String]) -> String {
        var text = "\(magic)\nexception \(escape(name))\nreason \(escape(reason))\n"
        for symbol in symbols { text += "symbol \(escape(symbol))\n" }
        return text + "end\n"
    }
}
