/// What each monotonic counter of a client gained between two ``MetricSnapshot``s: the amounts
/// to add to a metrics system's counters (swift-metrics' `Counter.increment(by:)`, a Prometheus
/// counter).
///
/// Only counters that never go down are here. The gauges (events pending on disk or in memory,
/// set aside now) go up and down and are recorded as they stand, from the snapshot itself.
///
/// A snapshot taken from another client, or older than `previous`, gives no negative amount:
/// each increment is at least zero.
public struct MetricIncrements: Sendable, Hashable {
    /// Events taken by `track()` (and by autocapture). See ``DeliveryCounters/tracked``.
    public var tracked = 0
    /// Events found on disk at launch. See ``DeliveryCounters/recovered``.
    public var recovered = 0
    /// Events skipped because the backlog was full. See ``DeliveryCounters/skippedBacklog``.
    public var skippedBacklog = 0
    /// Events dropped by validation. See ``DeliveryCounters/invalid``.
    public var invalid = 0
    /// Events a middleware step dropped. See ``DeliveryCounters/droppedByMiddleware``.
    public var droppedByMiddleware = 0
    /// Events dropped before `configure`. See ``DeliveryCounters/droppedBeforeConfigure``.
    public var droppedBeforeConfigure = 0
    /// Events dropped when shutdown's time limit ran out before the middleware steps.
    /// See ``DeliveryCounters/droppedAtShutdown``.
    public var droppedAtShutdown = 0
    /// Unsent events deleted by the opt-out. See ``DeliveryCounters/deletedByOptOut``.
    public var deletedByOptOut = 0
    /// Events evicted by the outbox's caps. See ``DeliveryCounters/evictedByCaps``.
    public var evictedByCaps = 0
    /// Events the ingest listed in `rejected`. See ``DeliveryCounters/rejectedByIngest``.
    public var rejectedByIngest = 0
    /// Events too large to send. See ``DeliveryCounters/droppedTooLarge``.
    public var droppedTooLarge = 0
    /// Events in batches set aside after a 400 or 415, counted each time a batch is set aside.
    /// See ``DeliveryCounters/setAsideInTotal``; the gauge is ``MetricSnapshot/setAside``.
    public var setAside = 0
    /// Events whose batch file vanished. See ``DeliveryCounters/lostFromDisk``.
    public var lostFromDisk = 0
    /// Events the ingest accepted. See ``DeliveryCounters/delivered``.
    public var delivered = 0
    /// `track()` calls made while collection was off. See ``DeliveryCounters/ignoredWhileDisabled``.
    public var ignoredWhileDisabled = 0
    /// `track()` calls made after shutdown. See ``DeliveryCounters/ignoredAfterShutdown``.
    public var ignoredAfterShutdown = 0
    /// Events kept without the device id they were given. See ``DeliveryCounters/clearedDeviceIDs``.
    public var clearedDeviceIDs = 0
    /// Damaged records skipped at launch. See ``DeliveryCounters/damagedRecords``.
    public var damagedRecords = 0
    /// Requests the ingest answered. See ``MetricSnapshot/requestsAnswered``.
    public var requestsAnswered = 0

    /// No increments at all.
    public init() {}

    /// The increments from `previous` to `current`, none below zero.
    init(from previous: MetricSnapshot, to current: MetricSnapshot) {
        let before = previous.counters
        let now = current.counters
        func gained(_ counter: KeyPath<DeliveryCounters, Int>) -> Int { max(0, now[keyPath: counter] - before[keyPath: counter]) }
        tracked = gained(\.tracked)
        recovered = gained(\.recovered)
        skippedBacklog = gained(\.skippedBacklog)
        invalid = gained(\.invalid)
        droppedByMiddleware = gained(\.droppedByMiddleware)
        droppedBeforeConfigure = gained(\.droppedBeforeConfigure)
        droppedAtShutdown = gained(\.droppedAtShutdown)
        deletedByOptOut = gained(\.deletedByOptOut)
        evictedByCaps = gained(\.evictedByCaps)
        rejectedByIngest = gained(\.rejectedByIngest)
        droppedTooLarge = gained(\.droppedTooLarge)
        setAside = gained(\.setAsideInTotal)
        lostFromDisk = gained(\.lostFromDisk)
        delivered = gained(\.delivered)
        ignoredWhileDisabled = gained(\.ignoredWhileDisabled)
        ignoredAfterShutdown = gained(\.ignoredAfterShutdown)
        clearedDeviceIDs = gained(\.clearedDeviceIDs)
        damagedRecords = gained(\.damagedRecords)
        requestsAnswered = max(0, current.requestsAnswered - previous.requestsAnswered)
    }
}
