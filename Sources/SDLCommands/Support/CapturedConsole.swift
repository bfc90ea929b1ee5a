import SimpleDataLogs

/// A console that keeps every line, for tests that run a command in-process.
package final class CapturedConsole: Console {
    /// One line written, and to which stream.
    package struct Line: Sendable, Hashable {
        /// Whether it went to standard error.
        package var isError: Bool
        /// The text, without the newline.
        package var text: String
    }

    private let recorded = Locked<[Line]>([])

    /// Creates an empty console.
    package init() {}

    package func out(_ line: String) { recorded.withLock { $0.append(Line(isError: false, text: line)) } }

    package func err(_ line: String) { recorded.withLock { $0.append(Line(isError: true, text: line)) } }

    /// Every line in the order written.
    package var lines: [Line] { recorded.withLock { $0 } }

    /// Standard output, joined with newlines.
    package var output: String { lines.filter { !$0.isError }.map(\.text).joined(separator: "\n") }

    /// Standard error, joined with newlines.
    package var errors: String { lines.filter(\.isError).map(\.text).joined(separator: "\n") }
}
