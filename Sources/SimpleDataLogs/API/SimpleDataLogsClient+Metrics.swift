extension SimpleDataLogsClient {
    /// The client's counters as a sequence of ``MetricSnapshot``s, for feeding a metrics system
    /// (swift-metrics, Prometheus, StatsD…) without the SDK depending on one.
    ///
    /// - The first snapshot is the current one, at once.
    /// - After it, the counters are read at each `interval` on the client's clock, and a snapshot
    ///   comes only if it differs from the last one this subscriber got: nothing while nothing
    ///   changes, one per interval however many changes it held.
    /// - Only the newest snapshot is kept for a reader that falls behind
    ///   (``MetricSnapshots/supersededCount`` counts the ones it replaced), so memory stays bounded.
    /// - After ``shutdown(timeLimit:)`` has made its last send, the final snapshot comes (if it
    ///   changed) and the sequence ends. `flushAndDisable` does not end it (collection may be
    ///   turned on again); its outcome shows at the next interval. A client released without
    ///   `shutdown()` ends it too, once its queue is journaled.
    ///
    /// Nothing is paid on the event path: `track()` never signals the sequence; each subscriber
    /// costs one read of the counters per interval. Leaving the loop (or cancelling the reading
    /// task) ends the polling. It works before ``configure(_:)`` as well (the counters count
    /// events held and dropped before it); subscribed after the shutdown, it holds the final
    /// snapshot and ends.
    ///
    /// ```swift
    /// var previous: MetricSnapshot?
    /// for await snapshot in client.metricSnapshots(every: .seconds(10)) {
    ///     let increments = snapshot.increments(since: previous)
    ///     // add increments.delivered to a counter, record snapshot.pendingOnDisk as a gauge…
    ///     previous = snapshot
    /// }
    /// ```
    /// - Parameter interval: How often the counters are read; 10 seconds by default, at least
    ///   100 milliseconds (a shorter interval is raised to it).
    /// - Returns: This subscriber's snapshots. Iterate it from one task.
    public func metricSnapshots(every interval: Duration = .seconds(10)) -> MetricSnapshots {
        metrics.subscribe(every: interval)
    }
}
