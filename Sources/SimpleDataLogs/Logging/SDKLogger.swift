/// The SDK's internal logger: filters by level before building the message, and routes to the
/// configured ``LogSink``.
///
/// The threshold is the sink's ``LogFiltering/threshold(configured:)``: the configured level for
/// standard error and custom sinks, every level for the unified log on Apple platforms (which
/// filters by itself). Callers log once per episode or per batch, never per event; the per-event
/// detail goes to the counters.
struct SDKLogger: Sendable {
    /// The level from `logLevel` or `SDL_LOG_LEVEL`.
    let level: LogLevel
    let sink: any LogSink
    /// The lowest level of line the sink is passed.
    let threshold: LogLevel

    init(level: LogLevel, sink: any LogSink) {
        self.level = level
        self.sink = sink
        threshold = sink.filtering.threshold(configured: level)
    }

    /// Whether debug lines reach the sink: for a line costly to build (a folder listing).
    var isDebugEnabled: Bool { passes(.debug) }

    func debug(_ message: @autoclosure () -> String) { emit(.debug, message) }
    func info(_ message: @autoclosure () -> String) { emit(.info, message) }
    func warning(_ message: @autoclosure () -> String) { emit(.warning, message) }
    func error(_ message: @autoclosure () -> String) { emit(.error, message) }
    /// A line at a level decided elsewhere (a state machine's `.log` action).
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) { emit(level, message) }

    private func passes(_ lineLevel: LogLevel) -> Bool {
        threshold != .off && lineLevel >= threshold
    }

    private func emit(_ lineLevel: LogLevel, _ message: () -> String) {
        guard passes(lineLevel) else { return }
        sink.log(lineLevel, message())
    }
}
