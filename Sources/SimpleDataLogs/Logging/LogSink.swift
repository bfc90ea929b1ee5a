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
/// call back into the SDK. It is only called for lines at or above the configured level.
public protocol LogSink: Sendable {
    /// Receives one finished line.
    /// - Parameters:
    ///   - level: The line's level, never ``LogLevel/off``.
    ///   - message: One line of text, without a trailing newline.
    func log(_ level: LogLevel, _ message: String)
}
