public import SimpleDataLogs

/// A log sink that keeps every line, so tests can assert what the SDK said (and how often).
public final class RecordingLogSink: LogSink {
    /// One line the SDK logged.
    public struct Line: Sendable, Hashable {
        /// Its level.
        public var level: LogLevel
        /// Its text.
        public var message: String
    }

    private let recorded = Locked<[Line]>([])

    /// Creates an empty sink.
    public init() {}

    /// Keeps the line.
    public func log(_ level: LogLevel, _ message: String) {
        recorded.withLock { $0.append(Line(level: level, message: message)) }
    }

    /// Every line so far, oldest first.
    public var lines: [Line] { recorded.withLock { $0 } }

    /// The lines whose text contains `text`.
    /// - Parameter text: What to look for.
    /// - Returns: The matching lines.
    public func lines(containing text: String) -> [Line] { lines.filter { $0.message.contains(text) } }
}
