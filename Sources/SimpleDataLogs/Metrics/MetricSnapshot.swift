/// A client's counters at one moment, with what a server's metrics system wants beside them:
/// the requests the ingest answered and the round trip of the latest answer.
///
/// Delivered by ``SimpleDataLogsClient/metricSnapshots(every:)`` when something changed. For a
/// counter-based metrics system, ``increments(since:)`` gives what each monotonic counter gained
/// between two snapshots; the gauges (``pendingOnDisk``, ``pendingInMemory``, ``setAside``) are
/// recorded as they stand.
public struct MetricSnapshot: Sendable, Hashable, CustomStringConvertible {
    /// What happened to every event so far; see ``DeliveryCounters``.
    public var counters: DeliveryCounters
    /// Requests the ingest answered so far, whatever the status (a 202, a 503, a 401…); a request
    /// that got no answer (a refused connection, a timeout) is not counted.
    public var requestsAnswered: Int
    /// How long the most recent answered request took, from sending to the answer, on the
    /// client's clock (the one given to ``SimpleDataLogsClient/init(clock:wallClock:logSink:eventsHeldBeforeConfigure:)``);
    /// `nil` until the ingest has answered once.
    public var lastRoundTrip: Duration?

    /// Creates a snapshot; the SDK makes them, tests of a bridge may too.
    /// - Parameters:
    ///   - counters: The counters.
    ///   - requestsAnswered: Requests the ingest answered.
    ///   - lastRoundTrip: The latest answer's round trip, if any.
    public init(counters: DeliveryCounters = DeliveryCounters(), requestsAnswered: Int = 0, lastRoundTrip: Duration? = nil) {
        self.counters = counters
        self.requestsAnswered = requestsAnswered
        self.lastRoundTrip = lastRoundTrip
    }

    /// A gauge: events in a file of the outbox (the journal or a sealed batch), waiting to be sent.
    public var pendingOnDisk: Int { counters.pendingOnDisk }

    /// A gauge: events taken by `track()` and in no file: not yet journaled, or held in memory
    /// by the outbox (no storage folder, or the disk refused them). What `kill -9` would lose.
    public var pendingInMemory: Int { counters.pendingInMemory }

    /// A gauge: events in batches set aside now (kept on disk, not sent). Its counter is
    /// ``DeliveryCounters/setAsideInTotal``.
    public var setAside: Int { counters.setAside }

    /// What each monotonic counter gained since `previous`: the amounts to add to a metrics
    /// system's counters.
    /// - Parameter previous: The snapshot the last increments were taken at, or `nil` for the
    ///   first time (the counters start at zero when the client is created, so the increments are
    ///   the counters themselves).
    /// - Returns: The increments, none negative.
    public func increments(since previous: MetricSnapshot?) -> MetricIncrements {
        MetricIncrements(from: previous ?? MetricSnapshot(), to: self)
    }

    /// The snapshot on one line, for logs and test failures.
    public var description: String {
        "\(counters); requests answered \(requestsAnswered), last round trip \(lastRoundTrip.map { "\($0)" } ?? "none")"
    }
}
