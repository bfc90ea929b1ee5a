extension SimpleDataLogs {
    /// Where the SDK's log lines go.
    ///
    /// The default is ``StandardErrorLogSink`` on Linux (and `os.Logger` on Apple platforms). Plug in
    /// your own to route the lines elsewhere, for example into swift-log:
    ///
    /// ```swift
    /// struct SwiftLogSink: LogSink {
    ///     let logger = Logger(label: SimpleDataLogs.logSubsystem)
    ///     func log(_ level: LogLevel, _ message: String) {
    ///         switch level {
    ///         case .debug: logger.debug("\(message)")
    ///         case .info: logger.info("\(message)")
    ///         case .warning: logger.warning("\(message)")
    ///         case .error, .off: logger.error("\(message)")
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Contract: `log` is called from any thread, never while the SDK holds a lock, and must not
    /// call back into the SDK. By default it is only called for lines at or above the configured
    /// level; a sink whose ``filtering`` is ``LogFiltering/byPlatform`` gets every line, at its own
    /// level, and leaves the choice to the platform's log.
    public protocol LogSink: Sendable {
        /// Receives one finished line.
        /// - Parameters:
        ///   - level: The line's level, never ``SimpleDataLogs/SimpleDataLogs/LogLevel/off``.
        ///   - message: One line of text, without a trailing newline.
        func log(_ level: LogLevel, _ message: String)

        /// Who filters the lines by level; ``LogFiltering/byConfiguredLevel`` unless the sink says
        /// otherwise.
        var filtering: LogFiltering { get }
    }
}

extension LogSink {
    /// The SDK filters by the configured level: what standard error and most custom sinks want.
    public var filtering: LogFiltering { .byConfiguredLevel }
}
