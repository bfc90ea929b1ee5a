/// Logs each kind of bad input once per client, not once per event: the counters carry the
/// per-event detail. A hot loop of bad events must not flood the app's log.
final class ProblemLog: Sendable {
    private struct State: Sendable {
        var logged: Set<String> = []
    }

    private let state = Locked(State())
    private let logger: SDKLogger

    init(logger: SDKLogger) { self.logger = logger }

    /// Logs each problem's first occurrence.
    func report(_ problems: [EventValidator.Problem]) {
        guard !problems.isEmpty else { return }
        for problem in Set(problems) where firstTime(problem.rawValue) {
            let outcome = problem.dropsEvent ? "dropped the event" : "kept the event"
            logger.warning("An event had \(problem.rawValue); the SDK \(outcome). Later occurrences are counted, not logged.")
        }
    }

    /// Logs the first `setDeviceID` refused.
    func reportInvalidDeviceID() {
        guard firstTime("device id") else { return }
        logger.warning("setDeviceID got an empty id or one over 200 UTF-8 bytes; later events carry no device_id until a valid id is set.")
    }

    /// Logs the first event dropped as too large for a request even alone; the rest are counted
    /// in `droppedTooLarge` (a hot loop of oversized events logged a line each).
    func reportTooLarge(name: String, bytes: Int) {
        guard firstTime("too large") else { return }
        logger.warning("Dropped event \"\(name)\": \(bytes) bytes, too large for a 256 KiB request even alone. Send fewer or shorter properties. Later ones are counted in droppedTooLarge, not logged.")
    }

    /// Logs the end of a backlog episode.
    func reportBacklogCleared(_ ended: (skipped: Int, backlog: Intake.Backlog)) {
        logger.info("The journal caught up; \(ended.skipped) events were skipped while the backlog was full (\(ended.backlog.events) events or \(ended.backlog.bytes / 1_048_576) MiB).")
    }

    private func firstTime(_ key: String) -> Bool {
        state.withLock { $0.logged.insert(key).inserted }
    }
}
