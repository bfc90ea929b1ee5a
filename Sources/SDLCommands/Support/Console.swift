/// Where a command writes: its normal output and its error output, one line at a time.
///
/// Commands take a console instead of calling `print`, so tests run them in-process and read
/// exactly what a user would have seen (``CapturedConsole``), and the executable writes straight
/// to the terminal (``StandardConsole``).
package protocol Console: Sendable {
    /// Writes one line (a newline is added) to standard output.
    func out(_ line: String)
    /// Writes one line (a newline is added) to standard error.
    func err(_ line: String)
}
