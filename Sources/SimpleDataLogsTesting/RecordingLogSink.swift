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

    /// Who filters the lines: the SDK by the configured level (the default, like standard
    /// error), or nobody, like the unified log on Apple platforms (``LogFiltering/byPlatform``).
    public let filtering: LogFiltering

    /// Creates an empty sink.
    /// - Parameter filtering: Pass ``LogFiltering/byPlatform`` to receive what the unified log
    ///   receives on Apple platforms: every line, at its own level.
    public init(filtering: LogFiltering = .byConfiguredLevel) {
        self.filtering = filtering
    }

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
