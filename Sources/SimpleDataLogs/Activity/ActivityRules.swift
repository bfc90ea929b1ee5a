/// The activity rules, as a pure value: whether someone was using the app when an event
/// happened (`app_state`) and how long the app was in front since the previous event
/// (`engaged_ms`).
///
/// `active` while the app is in front, or (on a Mac) when there was keyboard or mouse input in
/// the last 10 seconds; otherwise `background`. On Linux nothing reports activity unless the app
/// feeds ``ActivityEvent``s, so a server reports `background` and `engaged_ms` 0.
struct ActivityRules: Sendable {
    /// How recent input must be to count as use, in milliseconds.
    static let inputWindow: Int64 = 10_000

    private(set) var inFront = false
    private var frontSince: Int64?
    private var lastInput: Int64?
    /// Time in front accumulated since the previous stamped event.
    private var engaged: Int64 = 0

    /// Feeds one activity change.
    mutating func record(_ activity: ActivityEvent, at time: Int64) {
        switch activity {
        case .foreground:
            if !inFront { frontSince = time }
            inFront = true
        case .background:
            if inFront, let since = frontSince { engaged += max(0, time - since) }
            inFront = false
            frontSince = nil
        case .userInput:
            lastInput = max(lastInput ?? time, time)
        }
    }

    /// The `app_state` and `engaged_ms` of an event happening now, at `time`; restarts the
    /// engaged count for the next event.
    mutating func stamp(at time: Int64) -> (state: AppState, engagedMilliseconds: Int64) {
        if inFront, let since = frontSince {
            engaged += max(0, time - since)
            frontSince = time
        }
        let recentInput = lastInput.map { time - $0 <= Self.inputWindow && time >= $0 } ?? false
        let state: AppState = inFront || recentInput ? .active : .background
        defer { engaged = 0 }
        return (state, engaged)
    }
}
