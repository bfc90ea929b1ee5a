#if canImport(os)
import os

/// The default log sink on Apple platforms: `os.Logger` with the subsystem
/// `com.simpledatalogs.sdk`, so `log stream --predicate 'subsystem == "com.simpledatalogs.sdk"'
/// --level debug` shows the SDK's lines. Not part of a Linux build; Linux CI type-checks it
/// against a stand-in of `os` (DESIGN.md, "How the Apple code is checked").
///
/// Every line reaches it at its own level, whatever `logLevel` says (``filtering`` is
/// ``LogFiltering/byPlatform``): the unified log keeps or drops debug lines by its own settings,
/// so the `log stream` command works with the default configuration. Only ``SimpleDataLogs/SimpleDataLogs/LogLevel/off``
/// silences it.
public struct OSLogSink: LogSink {
    private let logger = Logger(subsystem: SimpleDataLogs.logSubsystem, category: "sdk")

    /// Creates the sink.
    public init() {}

    /// The unified log filters by itself.
    public var filtering: LogFiltering { .byPlatform }

    /// Sends one line to the unified log at the matching level.
    public func log(_ level: LogLevel, _ message: String) {
        switch level {
        case .debug: logger.debug("\(message, privacy: .public)")
        case .info: logger.info("\(message, privacy: .public)")
        case .warning: logger.warning("\(message, privacy: .public)")
        case .error, .off: logger.error("\(message, privacy: .public)")
        }
    }
}
#endif
