/// Who decides which of the SDK's lines a ``LogSink`` keeps: the SDK, by the configured level, or
/// the platform's log, by its own settings.
public enum LogFiltering: Sendable, Hashable {
    /// The SDK passes the sink only the lines at or above the configured level (`logLevel`,
    /// or `SDL_LOG_LEVEL` when set). Standard error and custom sinks work this way: a line
    /// below the level is never even built.
    case byConfiguredLevel
    /// Every line reaches the sink at its own level, and the platform's log keeps or shows it by
    /// its own settings. The unified log on Apple platforms works this way: debug lines cost
    /// little unless someone streams them (`log stream … --level debug`), so they are sent with
    /// the default configuration. Only ``SimpleDataLogs/SimpleDataLogs/LogLevel/off`` silences such a sink.
    case byPlatform

    /// The lowest level of line the SDK passes a sink with this filtering, when `configured` is
    /// the level from `logLevel` or `SDL_LOG_LEVEL`. The one routing rule, decided here (and
    /// tested on Linux) rather than in the platform's sink.
    /// - Parameter configured: The configured level.
    /// - Returns: The threshold; ``SimpleDataLogs/SimpleDataLogs/LogLevel/off`` passes nothing.
    public func threshold(configured: LogLevel) -> LogLevel {
        switch self {
        case .byConfiguredLevel: configured
        case .byPlatform: configured == .off ? .off : .debug
        }
    }
}
