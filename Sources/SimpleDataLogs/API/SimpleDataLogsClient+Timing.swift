extension SimpleDataLogsClient {
    /// Runs `operation` and tracks `name` when it ends, however it ends, with how long it took.
    ///
    /// The event carries the `properties` given, `duration_ms` (measured on the client's clock,
    /// the one tests replace) and `outcome`: `completed`, `failed` (with `error_type`, the error's
    /// type name, never its message) or `cancelled` (the task was cancelled, or the operation
    /// threw `CancellationError`). Nothing dangles: there is no start event waiting for an end
    /// that a throw or a cancellation would skip.
    ///
    /// `duration_ms`, `outcome` and `error_type` are the SDK's: they are what the call measures,
    /// so they replace a property of the same key in `properties` (logged once per client).
    /// ```swift
    /// let report = try await analytics.timed("report_generated", properties: ["kind": "monthly"]) {
    ///     try await generateReport()
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work to time.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws, after the event is tracked.
    public func timed<Result>(
        _ name: String,
        properties: [String: PropertyValue] = [:],
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        let stopwatch = Stopwatch(clock)
        do {
            let result = try await operation()
            trackTimed(name, properties: properties, elapsed: stopwatch.elapsed, outcome: .completed(cancelled: Task.isCancelled))
            return result
        } catch {
            trackTimed(name, properties: properties, elapsed: stopwatch.elapsed, outcome: .threw(error, cancelled: Task.isCancelled))
            throw error
        }
    }

    /// The synchronous form of ``timed(_:properties:isolation:operation:)``.
    public func timed<Result>(_ name: String, properties: [String: PropertyValue] = [:], operation: () throws -> Result) rethrows -> Result {
        let stopwatch = Stopwatch(clock)
        do {
            let result = try operation()
            trackTimed(name, properties: properties, elapsed: stopwatch.elapsed, outcome: .completed(cancelled: false))
            return result
        } catch {
            trackTimed(name, properties: properties, elapsed: stopwatch.elapsed, outcome: .threw(error, cancelled: false))
            throw error
        }
    }

    private func trackTimed(_ name: String, properties: [String: PropertyValue], elapsed: Duration, outcome: TimedOutcome) {
        var properties = properties
        // The measurement wins: a caller's own key of the same name would misreport it.
        let replaced = TimedOutcome.keys.filter { properties[$0] != nil }
        if !replaced.isEmpty {
            for key in TimedOutcome.keys { properties[key] = nil }
            pipeline?.problemLog.reportTimedKeysReplaced(replaced, event: name)
        }
        properties["duration_ms"] = .int(elapsed.wholeMilliseconds)
        properties.merge(outcome.properties) { _, outcome in outcome }
        record(name, properties: properties, at: nil, eventID: nil, deviceID: nil)
    }
}

/// How a timed operation ended, as its event's properties say.
enum TimedOutcome {
    case completed(cancelled: Bool)
    case threw(any Error, cancelled: Bool)

    /// The keys a timed event's measurement writes, which replace a caller's own.
    static let keys = ["duration_ms", "outcome", "error_type"]

    var properties: [String: PropertyValue] {
        switch self {
        case .completed(let cancelled):
            return ["outcome": cancelled ? "cancelled" : "completed"]
        case .threw(let error, let cancelled):
            if cancelled || error is CancellationError { return ["outcome": "cancelled"] }
            return ["outcome": "failed", "error_type": .string(String(describing: type(of: error)))]
        }
    }
}

/// Reads how long has passed on a clock given as an existential, whose instants can only be
/// compared inside a function generic over the clock's type.
struct Stopwatch {
    private let read: () -> Duration

    init(_ clock: any Clock<Duration>) {
        read = Self.start(clock)
    }

    /// The time since the stopwatch was made.
    var elapsed: Duration { read() }

    private static func start<C: Clock>(_ clock: C) -> () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
