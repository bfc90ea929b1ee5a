/// The SDK's internal logger: filters by level before building the message, and routes to the
/// configured ``LogSink``.
///
/// Callers log once per episode, never per event; the per-event detail goes to the counters.
struct SDKLogger: Sendable {
    let level: LogLevel
    let sink: any LogSink

    func debug(_ message: @autoclosure () -> String) { emit(.debug, message) }
    func info(_ message: @autoclosure () -> String) { emit(.info, message) }
    func warning(_ message: @autoclosure () -> String) { emit(.warning, message) }
    func error(_ message: @autoclosure () -> String) { emit(.error, message) }
    /// A line at a level decided elsewhere (a state machine's `.log` action).
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) { emit(level, message) }

    private func emit(_ lineLevel: LogLevel, _ message: () -> String) {
        guard level != .off, lineLevel >= level else { return }
        sink.log(lineLevel, message())
    }
}
