/// A command's arguments, taken apart by hand (no argument-parsing package is available):
/// positional words, options that take a value (`--port 4001` or `--port=4001`, repeatable),
/// and flags (`--json`). `--` ends the options; `-h` is `--help`.
struct ParsedArguments: Sendable, Equatable {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Parses `arguments` against the options a command knows.
    /// - Parameters:
    ///   - arguments: The words after the command's name.
    ///   - valued: Options that take a value, with their dashes (`--port`).
    ///   - flags: Options that take none (`--json`); `--help` is always known.
    ///   - command: The command's name, for the messages.
    /// - Throws: ``UsageError`` for an unknown option or a missing value.
    init(_ arguments: [String], valued: Set<String>, flags known: Set<String>, command: String) throws(UsageError) {
        let knownFlags = known.union(["--help"])
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if word == "-h" {
                flags.insert("--help")
                continue
            }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if valued.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    values[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError("\(name) needs a value.", hint: "Type `\(command) \(name) VALUE`, or see `\(command) --help`.")
                }
            } else if knownFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                let options = (valued.union(knownFlags)).sorted().joined(separator: ", ")
                throw UsageError("unknown option \(word).", hint: "\(command) knows \(options); see `\(command) --help`.")
            }
        }
    }

    /// Whether `--help` (or `-h`) was given.
    var wantsHelp: Bool { flags.contains("--help") }

    /// The last value given for `name`, if any.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for `name`, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }
}
