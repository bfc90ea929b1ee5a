public import Foundation

extension SimpleDataLogsClient {
    /// Records one event. Returns at once, from any thread or actor: the event is stamped and
    /// queued under a short lock, and the SDK's own threads do the rest.
    ///
    /// Every argument but the name is optional:
    ///
    /// ```swift
    /// client.track("screenshot_taken", properties: ["type": "area"])
    /// client.track("onboarding_step", properties: ["step": "welcome"], at: step.completedAt, eventID: step.id)
    /// client.track("invoice_paid", properties: ["plan": "pro"], deviceID: request.deviceID)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The event's name: 1 to 200 UTF-8 bytes, no control characters.
    ///   - properties: The event's own properties; they win over a scope's
    ///     (``withProperties(_:isolation:operation:)``) and over the default properties.
    ///   - date: When it happened, or `nil` for now. Up to 3,650 days back; older events are
    ///     dropped with a log line, a future time is sent as now, and a back-dated event never
    ///     moves sessions.
    ///   - eventID: A stable id, so that the same event sent twice counts once (a resend, a
    ///     webhook handled twice), or `nil` for a fresh one.
    ///   - deviceID: The device this event is about, for servers that track for many: it wins over
    ///     ``setDeviceID(_:)`` and ``withDeviceID(_:operation:)`` for this event alone. `nil`:
    ///     the device id those set.
    public func track(
        _ name: String, properties: [String: PropertyValue] = [:], at date: Date? = nil, eventID: UUID? = nil, deviceID: String? = nil
    ) {
        record(name, properties: properties, at: date, eventID: eventID, deviceID: deviceID)
    }

    /// Records one `track` call made through ``AnalyticsTracking``: the same as
    /// ``track(_:properties:at:eventID:deviceID:)`` with its arguments.
    /// - Parameter call: The call's arguments.
    public func record(_ call: TrackCall) {
        record(call.name, properties: call.properties, at: call.date, eventID: call.eventID, deviceID: call.deviceID)
    }

    /// Records a `screen_view` with a `screen` property.
    /// - Parameters:
    ///   - screen: The screen's name.
    ///   - properties: More properties; `screen` is set by this call.
    public func trackScreen(_ screen: String, properties: [String: PropertyValue] = [:]) {
        var properties = properties
        properties["screen"] = .string(screen)
        record("screen_view", properties: properties, at: nil, eventID: nil, deviceID: nil)
    }

    /// Runs `operation` with `deviceID` on every event it tracks (unless an event names its own),
    /// for request handlers: the id follows the task and its child tasks without being passed.
    /// - Parameters:
    ///   - deviceID: The device the work is for.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    public func withDeviceID<Result>(
        _ deviceID: String,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await TaskScope.$current.withValue(TaskScope.with(deviceID: deviceID), operation: operation, isolation: isolation)
    }

    /// The synchronous form of ``withDeviceID(_:isolation:operation:)``.
    public func withDeviceID<Result>(_ deviceID: String, operation: () throws -> Result) rethrows -> Result {
        try TaskScope.$current.withValue(TaskScope.with(deviceID: deviceID), operation: operation)
    }

    /// Runs `operation` with `properties` on every event it tracks, for request handlers: a
    /// request id or a tenant follows the task and its child tasks without being passed.
    ///
    /// An event's own properties win over the scope's, and the scope's over the default
    /// properties. Scopes nest: an inner scope's properties win over an outer one's. The merge
    /// happens on the SDK's stages thread, never in `track()`.
    /// - Parameters:
    ///   - properties: The properties for the events tracked inside.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    public func withProperties<Result>(
        _ properties: [String: PropertyValue],
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await TaskScope.$current.withValue(TaskScope.with(properties: properties), operation: operation, isolation: isolation)
    }

    /// The synchronous form of ``withProperties(_:isolation:operation:)``.
    public func withProperties<Result>(_ properties: [String: PropertyValue], operation: () throws -> Result) rethrows -> Result {
        try TaskScope.$current.withValue(TaskScope.with(properties: properties), operation: operation)
    }

    /// The hot path: stamp, enqueue, return. With the intake log, the call's own arguments are
    /// written into it under the intake's lock and the queue holds where (no ``Event`` built);
    /// without, the event is built inside the lock, so `track()` allocates nothing beyond it.
    @discardableResult
    func record(_ name: String, properties: [String: PropertyValue], at date: Date?, eventID: UUID?, deviceID: String?, origin requested: Event.Origin = .live) -> Bool {
        let now = wallClock.nowMilliseconds
        let scope = TaskScope.current
        let acceptance = intake.acceptCall(
            name: name, properties: properties, timestamp: date?.millisecondsSince1970 ?? now, trackedAt: now, eventID: eventID,
            origin: date == nil ? requested : .backdated, deviceIDSource: Self.deviceIDSource(deviceID, scope: scope), scoped: scope?.properties
        )
        report(acceptance)
        switch acceptance {
        case .accepted, .acceptedDroppingOldest, .acceptedUnlogged: return true
        case .ignoredWhileDisabled, .ignoredAfterShutdown, .skippedBacklog, .full: return false
        }
    }

    /// Where an event's device id comes from, decided at the call: a per-event id, else the
    /// task-local id of `withDeviceID`, else whatever `setDeviceID` said last, in intake order.
    static func deviceIDSource(_ deviceID: String?, scope: TaskScope?) -> Event.DeviceIDSource {
        if let deviceID { return .explicit(deviceID) }
        if let scoped = scope?.deviceID { return .explicit(scoped) }
        return .inherited
    }

    /// Logs the first event of an episode of skipping or dropping; the counters carry the rest.
    func report(_ acceptance: Intake.Acceptance) {
        switch acceptance {
        case .accepted, .ignoredWhileDisabled, .ignoredAfterShutdown(first: false), .full,
             .skippedBacklog(firstInEpisode: false, _), .acceptedDroppingOldest(firstInEpisode: false):
            return
        case .ignoredAfterShutdown(first: true):
            logger.warning("track() was called after shutdown(); the event is ignored, and so is every later one (counted in counters.ignoredAfterShutdown, not logged again). Stop the work that tracks before shutting the client down.")
        case .skippedBacklog(firstInEpisode: true, let backlog):
            logger.warning("More than \(backlog.events) events (or \(backlog.bytes / 1_048_576) MiB) are waiting to be written; new events are skipped (and counted) until the journal catches up. Track less often in hot loops, raise Configuration.limits.backlogEvents, or use track(_:properties:deviceID:waitingUpTo:) to wait instead.")
        case .acceptedUnlogged:
            logger.warning("The intake log is full (the journal is far behind); new calls wait in memory, unprotected against a kill, until it catches up. Nothing is dropped for it.")
        case .acceptedDroppingOldest(firstInEpisode: true):
            logger.warning("More than \(intake.preConfigureLimit) events were tracked before configure; the oldest are dropped (and counted). Call configure earlier at launch.")
        }
    }
}
