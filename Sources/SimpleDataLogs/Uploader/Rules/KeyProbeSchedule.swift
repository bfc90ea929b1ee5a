/// When to try the key again after a 401 (INGEST-API.md and the product doc: "re-probes 1 minute
/// later, then every 10 minutes, and on the next launch").
///
/// A new key goes live about 30 s after it is made, so the first probe at 1 minute picks it up;
/// after that a wrong key costs one request every 10 minutes. "On the next launch" needs nothing
/// here: the schedule lives in memory, so a new process starts unpaused and its first upload is
/// the probe.
///
/// Pure: the caller passes its monotonic clock's `now` and gets instants back, to sleep until on
/// the same clock.
struct KeyProbeSchedule<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The wait before the first probe after the first 401.
    static var firstProbeDelay: Duration { .seconds(60) }
    /// The wait between later probes.
    static var laterProbeInterval: Duration { .seconds(600) }

    /// What to do after a 401.
    struct Decision: Sendable, Equatable {
        /// When to send the next probe (the next try of the oldest batch).
        var nextProbe: Instant
        /// Whether this 401 starts an episode and so gets the one configuration-error log line;
        /// the 401s of later probes are not logged again.
        var logsConfigurationError: Bool
    }

    /// 401s in a row since the last 202.
    private(set) var consecutiveUnauthorized = 0
    /// When the paused uploader may send again; `nil` when not paused.
    private(set) var nextProbe: Instant?
    /// When the last 401 was counted: an answer to a request sent before it belongs to the same
    /// round (several requests in flight at once), not to a probe.
    private(set) var countedAt: Instant?

    /// Creates a schedule that is not paused.
    init() {}

    /// Whether a 401 has paused sending and no 202 has come since.
    var isPaused: Bool { nextProbe != nil }

    /// Records a 401.
    ///
    /// Several requests in flight at once all get their 401 for the same reason: only the first
    /// counts. One sent no later than the last counted 401 arrived changes nothing, so concurrent 401s
    /// keep the first probe at 1 minute instead of pushing it to 10.
    /// - Parameters:
    ///   - now: The monotonic clock's current instant.
    ///   - sentAt: When the answered request was sent; `now` when unknown.
    /// - Returns: When to probe next, and whether to log.
    mutating func recordUnauthorized(at now: Instant, sentAt: Instant? = nil) -> Decision {
        if let nextProbe, let countedAt, let sentAt, sentAt <= countedAt {
            return Decision(nextProbe: nextProbe, logsConfigurationError: false)
        }
        countedAt = now
        consecutiveUnauthorized += 1
        let isFirst = consecutiveUnauthorized == 1
        let probe = now.advanced(by: isFirst ? Self.firstProbeDelay : Self.laterProbeInterval)
        nextProbe = probe
        return Decision(nextProbe: probe, logsConfigurationError: isFirst)
    }

    /// Records a 202: the key works; sending resumes and a later 401 starts over at 1 minute.
    mutating func recordAccepted() {
        consecutiveUnauthorized = 0
        nextProbe = nil
        countedAt = nil
    }

    /// Whether the uploader may send at `now`: when not paused, or once the probe is due.
    /// - Parameter now: The monotonic clock's current instant.
    /// - Returns: `true` when a request may go.
    func maySend(at now: Instant) -> Bool {
        guard let nextProbe else { return true }
        return now >= nextProbe
    }

    /// How long until the uploader may send.
    /// - Parameter now: The monotonic clock's current instant.
    /// - Returns: Zero when it may send now.
    func remainingPause(at now: Instant) -> Duration {
        guard let nextProbe, now < nextProbe else { return .zero }
        return now.duration(to: nextProbe)
    }
}
