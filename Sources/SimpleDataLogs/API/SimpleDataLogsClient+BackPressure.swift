extension SimpleDataLogsClient {
    /// What became of one event tracked with ``track(_:properties:deviceID:waitingUpTo:)``.
    public enum TrackOutcome: Sendable, Equatable {
        /// Taken: it is on its way to the journal, like any tracked event.
        case accepted
        /// The backlog stayed full for the whole wait: skipped, and counted in
        /// ``DeliveryCounters/skippedBacklog``.
        case skippedBacklogFull
        /// Collection is off (``setEnabled(_:)``); not counted as tracked.
        case ignoredWhileDisabled
        /// The client is shut down; counted in ``DeliveryCounters/ignoredAfterShutdown`` only.
        case ignoredAfterShutdown
    }

    /// Records one event, waiting while the backlog of events not yet written is full, or while
    /// the outbox is at its caps, instead of skipping it or making the caps evict an older one:
    /// back-pressure for importers, batch jobs and request handlers that can afford to wait.
    /// Plain ``track(_:properties:at:eventID:deviceID:)`` never waits.
    ///
    /// It suspends (holding no thread) until the journal and the outbox make room (the outbox
    /// makes room as the ingest takes batches) or `timeLimit` passes on the client's clock, then
    /// reports what happened; only then is a full backlog's event skipped, or, at the outbox's
    /// caps, the event taken and the oldest batch evicted, as `track()` would. So a burst
    /// through it loses nothing to the caps while the ingest keeps up within the limit.
    /// A cancelled caller stops waiting at once, the same way. Before ``configure(_:)`` it takes
    /// the event at once, like `track`.
    ///
    /// ```swift
    /// for row in rows {
    ///     let outcome = await analytics.track("row_imported", properties: ["table": "orders"], waitingUpTo: .seconds(5))
    ///     if outcome == .skippedBacklogFull { skipped += 1 }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - deviceID: The device this event is about, or `nil` for the task's or the client's.
    ///   - timeLimit: How long to wait for room at most.
    /// - Returns: Whether the event was taken, and why not.
    @discardableResult
    public func track(
        _ name: String, properties: [String: PropertyValue] = [:], deviceID: String? = nil, waitingUpTo timeLimit: Duration
    ) async -> TrackOutcome {
        let now = wallClock.nowMilliseconds
        let scope = TaskScope.current
        let source = Self.deviceIDSource(deviceID, scope: scope)
        let scoped = scope?.properties
        let cost = Event.memoryCost(name: name, properties: properties, deviceID: deviceID)
        // Stamped with the call's time whenever it is taken; the id when it is taken.
        let make: @Sendable (inout EventIDGenerator) -> Event = { ids in
            Event(
                name: name, id: ids.next(milliseconds: now), timestamp: now, trackedAt: now,
                properties: properties, origin: .live, deviceIDSource: source, scopedProperties: scoped, memoryCost: cost
            )
        }
        let intake = intake
        let first = intake.accept(cost: cost, waitsWhenFull: true, make)
        // A call after shutdown logs once, like `track()`.
        if case .ignoredAfterShutdown = first { report(first) }
        if let outcome = Self.outcome(of: first) { return outcome }
        let clock = clock
        // Waiting for room races the limit. A late result is kept, so an event taken just as the
        // limit ran out is reported taken.
        let taken = await Deadline.run(timeLimit, on: clock, keepsLateResult: true) { () -> TrackOutcome? in
            while !Task.isCancelled {
                await intake.waitForRoom(cost: cost)
                if let outcome = Self.outcome(of: intake.accept(cost: cost, waitsWhenFull: true, make)) { return outcome }
            }
            return nil
        }
        if let taken = taken.flatMap({ $0 }) { return taken }
        // The limit passed: the last try counts the skip (and logs the episode's first) as
        // `track()` would have.
        let last = intake.accept(cost: cost, make)
        report(last)
        return Self.outcome(of: last) ?? .skippedBacklogFull
    }

    /// The caller's view of an acceptance, or `nil` when the backlog is full and it may wait.
    private static func outcome(of acceptance: Intake.Acceptance) -> TrackOutcome? {
        switch acceptance {
        case .accepted, .acceptedDroppingOldest, .acceptedUnlogged: .accepted
        case .ignoredWhileDisabled: .ignoredWhileDisabled
        case .ignoredAfterShutdown: .ignoredAfterShutdown
        case .skippedBacklog: .skippedBacklogFull
        case .full: nil
        }
    }
}
