// App code that uses the SimpleDataLogs API the way an app does: from @MainActor code, with
// literals, tasks that read the delivery reports, custom sinks, a custom transport and clients of
// its own. Compiled in Swift 5 mode and in Swift 6 mode with the main actor as the default
// isolation (see Package.swift); scripts/consumer-check.sh fails on any diagnostic a build prints.
// Never run: it only has to compile, with nothing to say.
import Foundation
import SimpleDataLogs

/// The app's own `Transport` and `LogLevel`, named like the SDK's: the SDK's stay reachable as
/// `SimpleDataLogs.Transport` and `SimpleDataLogs.LogLevel` (the façade's namespace), which the
/// sink and the transport below use.
protocol Transport { func connect() }
enum LogLevel { case verbose }

/// A custom sink, as an app that routes the SDK's lines into its own logging writes it.
struct AppLogSink: SimpleDataLogs.LogSink {
    func log(_ level: SimpleDataLogs.LogLevel, _ message: String) {
        print("[analytics] \(level): \(message)")
    }
}

/// A sink that wants every line, leaving the filtering to its own back end.
struct UnfilteredLogSink: SimpleDataLogs.LogSink {
    var filtering: LogFiltering { .byPlatform }

    func log(_ level: SimpleDataLogs.LogLevel, _ message: String) {
        print(message)
    }
}

/// A transport of the app's own (a proxy, a test double): the SDK calls it off the main actor.
struct AppTransport: SimpleDataLogs.Transport {
    let underlying = URLSessionTransport()

    func send(_ request: UploadRequest) async throws -> UploadResponse {
        var request = request
        request.headers["X-App-Build"] = "42"
        let response = try await underlying.send(request)
        return UploadResponse(status: response.status, headers: response.headers, body: response.body)
    }
}

/// A wall clock of the app's own, as a test suite sets one.
struct FixedWallClock: WallClock {
    let date: Date

    func now() -> Date { date }
}

/// What an app keeps at its top: set up once at launch, then tracked from views and models.
@MainActor
final class AppAnalytics {
    private var reportsTask: Task<Void, Never>?
    private(set) var deliveredEvents = 0

    /// At launch, in the order README gives: the opt-out, default properties, identity, the key.
    func launch(shareUsageStatistics: Bool) {
        SimpleDataLogs.setEnabled(shareUsageStatistics)
        SimpleDataLogs.setDefaultProperties([
            "app_version": "1.1.0", "build": 42, "is_beta": false, "screen_scale": 2.0,
        ])
        SimpleDataLogs.setDeviceID("device-\(UUID().uuidString)")
        SimpleDataLogs.configure(ingestKey: "sdl_pub_consumer", autocapture: .all)

        // Reports read on the main actor, updating main-actor state.
        reportsTask = Task {
            for await report in SimpleDataLogs.shared.deliveryReports() {
                if case .delivered(_, let delivered, _) = report {
                    self.deliveredEvents += delivered
                }
            }
        }
    }

    /// From a button's action or a view model: synchronous, returns at once.
    func screenshotTaken(area: Bool, count: Int) {
        SimpleDataLogs.track("screenshot_taken", properties: [
            "type": area ? "area" : "window", "count": .int(Int64(count)), "retina": true, "scale": 1.5,
        ])
        SimpleDataLogs.track("app_opened")
        SimpleDataLogs.trackScreen("settings", properties: ["tab": "privacy"])
    }

    /// The opt-out switch in settings; the completion runs on no particular thread.
    func userTurnedOff() {
        SimpleDataLogs.flushAndDisable {
            print("analytics off")
        }
    }

    /// From the app's lifecycle hooks on a platform without the SDK's adapters.
    func didBecomeActive() {
        SimpleDataLogs.shared.reportActivity(.foreground)
        SimpleDataLogs.shared.reportActivity(.userInput)
    }

    /// A status line for a debug screen.
    func status() -> String {
        let counters = SimpleDataLogs.counters
        return "tracked \(counters.tracked), pending \(counters.pending), delivered \(counters.delivered), balanced \(counters.isBalanced)"
    }

    /// On the way out: one bounded send.
    func quit() async {
        let result = await SimpleDataLogs.flush()
        print("flushed \(result.delivered), \(result.remaining) left")
        reportsTask?.cancel()
        await SimpleDataLogs.shutdown()
    }

    /// A scope in which every event carries another device's id (the shared client).
    func onBehalfOf(_ deviceID: String) async {
        SimpleDataLogs.shared.withDeviceID(deviceID) {
            SimpleDataLogs.track("shared_device_used")
        }
    }
}

/// A client of the app's own, for a second project or an embedded server, used from the main actor.
@MainActor
final class SecondProject {
    let analytics = SimpleDataLogsClient(logSink: AppLogSink())
    let verbose = SimpleDataLogsClient(
        wallClock: FixedWallClock(date: Date(timeIntervalSince1970: 1_800_000_000)), logSink: UnfilteredLogSink(), eventsHeldBeforeConfigure: 100
    )
    private var reportsTask: Task<Void, Never>?
    private(set) var lastReport = ""

    func start() {
        analytics.configure(.server(ingestKey: "sdl_sec_consumer"))
        var configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_consumer", logLevel: .debug, batchSize: 10, transport: AppTransport())
        configuration.limits = .server
        verbose.configure(configuration)
        let analytics = analytics
        reportsTask = Task {
            for await report in analytics.deliveryReports(bufferingNewest: 100) {
                self.lastReport = "\(report)"
            }
        }
    }

    func handle(requestFrom deviceID: String, totalCents: Int) async throws {
        analytics.track("order_placed", properties: ["total_cents": .int(Int64(totalCents)), "gift": false], deviceID: deviceID)
        try await analytics.withDeviceID(deviceID) {
            analytics.track("cart_viewed", properties: ["items": 3, "currency": "EUR", "discount": 0.1])
            try await Task.sleep(for: .milliseconds(1))
        }
        analytics.withDeviceID(deviceID) {
            analytics.track("receipt_sent")
        }
        let outcome = await analytics.track("row_imported", properties: ["table": "orders"], waitingUpTo: .seconds(5))
        if outcome == .skippedBacklogFull {
            print("skipped")
        }
        analytics.setDeviceID(nil)
        analytics.setDefaultProperties(["region": "eu"])
        analytics.setEnabled(true)
        print(analytics.counters.description)
    }

    func stop() async {
        _ = await analytics.flush()
        await analytics.shutdown()
        await verbose.shutdown(timeLimit: .seconds(1))
        reportsTask?.cancel()
    }
}

/// A job scoped to a client's lifetime, started from the main actor.
@MainActor
func exportJob(rows: Int) async -> Int {
    await SimpleDataLogsClient.withClient(.init(ingestKey: "sdl_sec_consumer")) { analytics in
        for row in 0..<rows {
            analytics.track("row_exported", properties: ["row": .int(Int64(row))])
        }
        return rows
    }
}

/// The SDK's version, for an about screen.
@MainActor
let analyticsVersion = SimpleDataLogsVersion.current

/// The features of issue 16, called from main-actor code: middleware built in a main-actor
/// function, a logout, the offline switch, a timed operation, per-request properties, and code
/// written against the `AnalyticsTracking` protocol.
@MainActor
func configureWithMiddleware(isExpensiveNetwork: Bool) async throws {
    var configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_consumer")
    configuration.usesInstallID = true
    configuration.middleware = [
        .enrich("build") { _ in ["build": "1.0"] },
        .scrub("no personal data", keys: ["email"]),
        .drop("no debug events") { $0.name.hasPrefix("debug_") },
        EventMiddleware("rename") { event in
            if event.name == "legacy" { event.name = "modern" }
            return .keep
        },
    ]
    SimpleDataLogs.configure(configuration)
    SimpleDataLogs.shared.setOffline(isExpensiveNetwork)
    let rows = try await SimpleDataLogs.shared.timed("export_finished", properties: ["format": "csv"]) {
        try await Task.sleep(for: .milliseconds(1))
        return 3
    }
    SimpleDataLogs.track("exported", properties: ["rows": .int(Int64(rows))])
    SimpleDataLogs.shared.withProperties(["request_id": "r1"]) {
        SimpleDataLogs.track("inside_request")
    }
    SimpleDataLogs.reset()
    logOut(from: SimpleDataLogs.shared)
}

/// Code that takes "something that tracks", as a view model would.
@MainActor
func logOut(from tracker: some AnalyticsTracking) {
    tracker.track("logged_out")
    tracker.reset()
}

/// Every call shape of the product doc, as it is written there: they must keep compiling.
@MainActor
func productDocCallShapes(eventName: String, parameters: [String: Any], step: (name: String, completedAt: Date, id: UUID)) async {
    SimpleDataLogs.setEnabled(true)
    SimpleDataLogs.setDeviceID("anonymous-device-id")
    SimpleDataLogs.setDefaultProperties(["app_version": "1.1.0", "distribution": "website"])
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…")
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…", autocapture: .all)
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…", autocapture: .all, sessionMode: .inactivityTimeout(minutes: 30))
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…", autocapture: .all, crashReasonRedaction: .standard)
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…", endpoint: URL(string: "http://localhost:4001")!)
    SimpleDataLogs.track("screenshot_taken", properties: ["type": "area"])
    SimpleDataLogs.track("sync_finished", properties: ["app_state": "background"])
    SimpleDataLogs.track("export_finished", properties: ["format": "png", "duration_ms": 412, "is_pro": true])
    SimpleDataLogs.track(eventName, properties: parameters.compactMapValues(PropertyValue.init(bridging:)))
    SimpleDataLogs.track("onboarding_step", properties: ["step": .string(step.name)], at: step.completedAt, eventID: step.id)
    SimpleDataLogs.track("purchase", properties: ["plan": "pro"], eventID: step.id)
    SimpleDataLogs.trackScreen("Settings")
    await SimpleDataLogs.flushAndDisable()
}
