package import SimpleDataLogs

/// Routes the SDK's own log lines into a command's console, marked as the SDK's, so they read
/// in order with the command's lines (and tests capture them too).
package struct ConsoleLogSink: LogSink {
    let console: any Console
    let toStandardError: Bool
    let indent: String

    /// Creates the sink.
    /// - Parameters:
    ///   - console: Where the lines go.
    ///   - toStandardError: Whether they go to standard error (the default) or standard output.
    ///   - indent: Written before each line.
    package init(console: any Console, toStandardError: Bool = true, indent: String = "") {
        self.console = console
        self.toStandardError = toStandardError
        self.indent = indent
    }

    package func log(_ level: LogLevel, _ message: String) {
        let line = "\(indent)[SDK \(level)] \(message)"
        if toStandardError { console.err(line) } else { console.out(line) }
    }
}
