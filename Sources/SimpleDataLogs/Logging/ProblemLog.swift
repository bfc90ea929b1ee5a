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

    /// Where a refused device id came from, for its one line.
    enum DeviceIDSource: String, Sendable {
        case call = "given to track(deviceID:) or withDeviceID"
        case middleware = "set by a middleware step"
    }

    /// Logs the first event whose own device id (per event, task-local, or from a step) was
    /// refused; the rest are counted in `clearedDeviceIDs`.
    func reportClearedDeviceID(from source: DeviceIDSource) {
        guard firstTime("device id \(source)") else { return }
        logger.warning("An event's device id \(source.rawValue) was empty or over 200 UTF-8 bytes; the SDK kept the event without a device_id (not the client's: the id named another device). Later ones are counted in clearedDeviceIDs, not logged.")
    }

    /// Logs the events shutdown dropped because its time limit ran out before the middleware
    /// steps had seen them: once, at shutdown.
    func reportDroppedAtShutdown(_ count: Int, timeLimit: Duration) {
        logger.warning("Shutdown's time limit (\(timeLimit)) ran out while middleware steps were still working: \(count) events not yet journaled were dropped (counted in droppedAtShutdown). Make the steps faster or give shutdown more time; a step still running keeps the SDK's stages thread until it returns.")
    }

    /// Logs the first timed event whose caller's properties held a key the measurement writes.
    func reportTimedKeysReplaced(_ keys: [String], event name: String) {
        guard firstTime("timed keys") else { return }
        logger.warning("timed(\"\(name)\") was given \(keys.joined(separator: ", ")) among its properties; the SDK replaced them with what it measured (duration_ms, outcome, error_type are the timed event's own). Use other keys for your values. Later ones are not logged.")
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
