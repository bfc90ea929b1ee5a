public import Foundation

/// The SDK's static façade: one default ``SimpleDataLogsClient`` for the whole app.
///
/// ```swift
/// SimpleDataLogs.setEnabled(userAllowsUsageStatistics)
/// SimpleDataLogs.setDeviceID(anonymousDeviceID)
/// SimpleDataLogs.configure(ingestKey: "sdl_pub_…")
/// SimpleDataLogs.track("screenshot_taken", properties: ["type": "area"])
/// ```
///
/// The default client is the package's only global. It is created on first use and lives for the
/// rest of the process; its tasks are owned by its pipeline, which ``shutdown(timeLimit:)`` ends.
public enum SimpleDataLogs {
    /// The subsystem the SDK logs under: `com.simpledatalogs.sdk`.
    public static let logSubsystem = "com.simpledatalogs.sdk"

    /// The client behind the static calls.
    public static let shared = SimpleDataLogsClient()

    /// Starts the SDK once; later calls are ignored with a log line.
    /// - Parameters:
    ///   - ingestKey: `sdl_pub_…` in apps, `sdl_sec_…` on servers.
    ///   - endpoint: Where events go; `https://edge.simpledatalogs.com` by default.
    ///   - autocapture: What is sent without a `track` call; none by default.
    ///   - sessionMode: When sessions end.
    ///   - crashReasonRedaction: How much of a crash reason is sent.
    ///   - activity: Whether events carry `app_state` and `engaged_ms`.
    ///   - logLevel: The lowest level logged (`SDL_LOG_LEVEL` wins when set).
    ///   - storageDirectory: The outbox folder, or `nil` for the default.
    ///   - usesInstallID: Whether events for which the app sets no device id carry an install id
    ///     the SDK keeps with the outbox; off by default. See
    ///     ``SimpleDataLogsClient/Configuration/usesInstallID``.
    public static func configure(
        ingestKey: String,
        endpoint: URL = SimpleDataLogsClient.Configuration.defaultEndpoint,
        autocapture: Autocapture = [],
        sessionMode: SessionMode = .activation,
        crashReasonRedaction: CrashReasonRedaction = .none,
        activity: ActivityTracking = .on,
        logLevel: LogLevel = .warning,
        storageDirectory: URL? = nil,
        usesInstallID: Bool = false
    ) {
        shared.configure(
            ingestKey: ingestKey, endpoint: endpoint, autocapture: autocapture, sessionMode: sessionMode,
            crashReasonRedaction: crashReasonRedaction, activity: activity, logLevel: logLevel,
            storageDirectory: storageDirectory, usesInstallID: usesInstallID
        )
    }

    /// Starts the SDK with a full configuration; later calls are ignored with a log line.
    /// - Parameter configuration: The key, the endpoint and the options.
    public static func configure(_ configuration: SimpleDataLogsClient.Configuration) {
        shared.configure(configuration)
    }

    /// Records one event; see ``SimpleDataLogsClient/track(_:properties:at:eventID:deviceID:)``.
    /// Returns at once, from any thread or actor.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - date: When it happened (up to 3,650 days back), or `nil` for now.
    ///   - eventID: A stable id, so that a resend counts once, or `nil` for a fresh one.
    ///   - deviceID: The device this event is about, or `nil` for ``setDeviceID(_:)``'s.
    public static func track(
        _ name: String, properties: [String: PropertyValue] = [:], at date: Date? = nil, eventID: UUID? = nil, deviceID: String? = nil
    ) {
        shared.track(name, properties: properties, at: date, eventID: eventID, deviceID: deviceID)
    }

    /// Records a `screen_view` with a `screen` property.
    /// - Parameters:
    ///   - screen: The screen's name.
    ///   - properties: More properties.
    public static func trackScreen(_ screen: String, properties: [String: PropertyValue] = [:]) {
        shared.trackScreen(screen, properties: properties)
    }

    /// Sets, or clears with `nil`, the `device_id` on every later event.
    /// - Parameter deviceID: An anonymous id, or `nil`.
    public static func setDeviceID(_ deviceID: String?) {
        shared.setDeviceID(deviceID)
    }

    /// Replaces the properties merged into every event; the event's own properties win on a clash.
    /// - Parameter properties: The new defaults.
    public static func setDefaultProperties(_ properties: [String: PropertyValue]) {
        shared.setDefaultProperties(properties)
    }

    /// The opt-out: `false` ignores new events and deletes every unsent event; `true` collects again.
    /// - Parameter enabled: Whether to collect.
    public static func setEnabled(_ enabled: Bool) {
        shared.setEnabled(enabled)
    }

    /// Sends everything now and returns when that attempt ends; undelivered events stay on disk.
    /// - Returns: What was delivered and what remains.
    @discardableResult
    public static func flush() async -> FlushResult {
        await shared.flush()
    }

    /// Ignores new events at once, sends what is queued, then turns collection off and deletes the rest.
    /// - Parameter timeLimit: How long the last send may take; 10 seconds by default.
    public static func flushAndDisable(timeLimit: Duration = .seconds(10)) async {
        await shared.flushAndDisable(timeLimit: timeLimit)
    }

    /// The completion-handler form of ``flushAndDisable(timeLimit:)``.
    /// - Parameters:
    ///   - timeLimit: How long the last send may take.
    ///   - completion: Called once when collection is off.
    public static func flushAndDisable(timeLimit: Duration = .seconds(10), completion: @escaping @Sendable () -> Void) {
        shared.flushAndDisable(timeLimit: timeLimit, completion: completion)
    }

    /// Stops intake, journals what is queued, tries one send within `timeLimit`, and keeps the
    /// rest on disk. Call it at the end of a command-line tool's `main`.
    /// - Parameter timeLimit: How long the last send may take.
    public static func shutdown(timeLimit: Duration = .seconds(5)) async {
        await shared.shutdown(timeLimit: timeLimit)
    }

    /// Runs `operation` with `deviceID` on every event it tracks; see
    /// ``SimpleDataLogsClient/withDeviceID(_:isolation:operation:)``.
    /// - Parameters:
    ///   - deviceID: The device the work is for.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    public static func withDeviceID<Result>(
        _ deviceID: String,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await shared.withDeviceID(deviceID, isolation: isolation, operation: operation)
    }

    /// What happened to every event so far.
    public static var counters: DeliveryCounters { shared.counters }

    /// Reports a change in whether someone is using the app; see
    /// ``SimpleDataLogsClient/reportActivity(_:)``.
    /// - Parameter activity: What changed, now.
    public static func reportActivity(_ activity: ActivityEvent) {
        shared.reportActivity(activity)
    }

    /// Reports of what happens to each batch; see ``SimpleDataLogsClient/deliveryReports(bufferingNewest:)``.
    /// - Parameter limit: How many reports to hold for a slow reader.
    /// - Returns: The reports.
    public static func deliveryReports(bufferingNewest limit: Int = 1_000) -> DeliveryReports {
        shared.deliveryReports(bufferingNewest: limit)
    }

    /// The counters as snapshots, at once and then on change, for a metrics system; see
    /// ``SimpleDataLogsClient/metricSnapshots(every:)``.
    /// - Parameter interval: How often the counters are read; 10 seconds by default.
    /// - Returns: The snapshots, until ``shutdown(timeLimit:)``.
    public static func metricSnapshots(every interval: Duration = .seconds(10)) -> MetricSnapshots {
        shared.metricSnapshots(every: interval)
    }
}
