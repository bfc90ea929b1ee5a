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
/// The façade has the product's calls (configure, track, screens, device id, default properties,
/// the opt-out, reset, flush, shutdown, the counters). Everything else a client does is one word
/// away, on the same client: `SimpleDataLogs.shared.timed(…)`, `.withProperties(…)`,
/// `.withDeviceID(…)`, `.setOffline(_:)`, `.reportActivity(_:)`, `.deliveryReports()`,
/// `.metricSnapshots()`.
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

    /// Forgets who was using the app, for a logout; see ``SimpleDataLogsClient/reset(deviceID:)``.
    /// - Parameter deviceID: The next user's anonymous id, or `nil` for none.
    public static func reset(deviceID: String? = nil) {
        shared.reset(deviceID: deviceID)
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

    /// What happened to every event so far.
    public static var counters: DeliveryCounters { shared.counters }

}
