/// What each monotonic counter of a client gained between two ``MetricSnapshot``s: the amounts
/// to add to a metrics system's counters (swift-metrics' `Counter.increment(by:)`, a Prometheus
/// counter).
///
/// The counters are ``DeliveryCounters``' own, read by name on the increments
/// (`added.delivered`, `added.evictedByCaps`), so there is one list of counters, not two. The
/// gauges go up and down and are recorded as they stand, from the snapshot itself: here
/// `pendingInMemory` and `pendingOnDisk` are 0, and `setAside` is what `setAsideInTotal` gained
/// (batches set aside since `previous`), as is `setAsideInTotal`.
///
/// A snapshot taken from another client, or older than `previous`, gives no negative amount:
/// each increment is at least zero.
@dynamicMemberLookup
public struct MetricIncrements: Sendable, Hashable {
    /// What each counter gained; see the type's comment for the gauges.
    public var counters: DeliveryCounters
    /// Answers heard from the ingest (see ``MetricSnapshot/requestsAnswered``).
    public var requestsAnswered: Int

    /// Increments of the given amounts; none by default.
    /// - Parameters:
    ///   - counters: What each counter gained.
    ///   - requestsAnswered: Answers heard.
    public init(counters: DeliveryCounters = DeliveryCounters(), requestsAnswered: Int = 0) {
        self.counters = counters
        self.requestsAnswered = requestsAnswered
    }

    /// One counter's increment, by its name in ``DeliveryCounters``.
    public subscript<Value>(dynamicMember counter: KeyPath<DeliveryCounters, Value>) -> Value {
        counters[keyPath: counter]
    }

    /// The monotonic counters, each one's gain computed the same way. (Made per call: key paths
    /// are not `Sendable`, so a static list would need an unchecked opt-out; snapshots come
    /// seconds apart.)
    private static var monotonic: [WritableKeyPath<DeliveryCounters, Int>] { [
        \.tracked, \.recovered, \.skippedBacklog, \.invalid, \.droppedByMiddleware, \.droppedBeforeConfigure,
        \.droppedAtShutdown, \.deletedByOptOut, \.evictedByCaps, \.rejectedByIngest, \.droppedTooLarge,
        \.setAsideInTotal, \.lostFromDisk, \.delivered, \.ignoredWhileDisabled, \.ignoredAfterShutdown,
        \.clearedDeviceIDs, \.damagedRecords,
    ] }

    init(from previous: MetricSnapshot, to current: MetricSnapshot) {
        let before = previous.counters
        let now = current.counters
        var gained = DeliveryCounters()
        for counter in Self.monotonic {
            gained[keyPath: counter] = max(0, now[keyPath: counter] - before[keyPath: counter])
        }
        gained.setAside = gained.setAsideInTotal
        for (step, count) in now.droppedByStep {
            let added = count - (before.droppedByStep[step] ?? 0)
            if added > 0 { gained.droppedByStep[step] = added }
        }
        self.init(counters: gained, requestsAnswered: max(0, current.requestsAnswered - previous.requestsAnswered))
    }
}
