// The code samples of README.md, compiled. `DocSnippetTests` checks that every Swift block of
// the README appears here line for line; each sits in a function that declares what the sample
// takes for granted (a request, the user's setting…). None of these functions is called.
import Foundation
import SimpleDataLogs

/// What the samples call a request.
struct SnippetRequest: Sendable {
    var deviceID: String
}

/// What the samples call the request's handler.
func handle(_ request: SnippetRequest) async throws {}

// README.md, "Quick start: an app" (its App is Sources/Examples/SwiftUIApp/ExampleApp.swift).
func readmeAppQuickStart() {
    // In init(), before configure: the opt-out first (here a setting the app keeps), then default properties.
    SimpleDataLogs.setEnabled(UserDefaults.standard.object(forKey: "shareUsageStatistics") as? Bool ?? true)
    SimpleDataLogs.setDefaultProperties(["app_version": "1.1.0", "distribution": "website"])

    // Anywhere, from any thread or actor; it returns at once.
    SimpleDataLogs.track("screenshot_taken", properties: ["type": "area"])
}

// README.md, "From a phone on the same network": the App's init() for a physical device.
struct ReadmePhoneApp {
    init() {
        #if DEBUG
        // Your Mac's address, as `sdl ingest --host 0.0.0.0` prints it.
        var configuration = SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_…", endpoint: URL(string: "http://192.168.1.20:4001")!, autocapture: .all,
            allowsInsecureHTTP: true
        )
        #else
        var configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_…", autocapture: .all)
        #endif
        configuration.usesInstallID = true
        SimpleDataLogs.configure(configuration)
    }
}

// README.md, "Quick start: a server".
func readmeServerQuickStart(request: SnippetRequest) async throws {
    let analytics = SimpleDataLogsClient()
    analytics.configure(.server(ingestKey: "sdl_sec_…"))

    // In a request handler: the id is per event…
    analytics.track("order_placed", properties: ["total_cents": 1299], deviceID: request.deviceID)

    // …or per task, for everything the handler (and its child tasks) tracks.
    try await analytics.withDeviceID(request.deviceID) {
        try await handle(request)
    }

    // On the way out, after the handlers: one send bounded by 5 seconds, even from a cancelled task.
    await analytics.shutdown()
}

// README.md, "Quick start: a command-line tool".
func readmeCommandLineQuickStart() async {
    SimpleDataLogs.configure(ingestKey: "sdl_sec_…")
    SimpleDataLogs.track("export_finished", properties: ["format": "png"])
    await SimpleDataLogs.shutdown()   // journals and sends before the tool exits
}

// GettingStarted.md.
struct SnippetSettings { var isUsageSharingOn: Bool }

func gettingStarted(settings: SnippetSettings, anonymousDeviceID: String) {
    SimpleDataLogs.setEnabled(settings.isUsageSharingOn)
    SimpleDataLogs.setDeviceID(anonymousDeviceID)
    SimpleDataLogs.setDefaultProperties(["app_version": "1.1.0"])
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…", autocapture: .all)
}

func gettingStartedTrack() {
    SimpleDataLogs.track("export_finished", properties: ["format": "png", "duration_ms": 412, "is_pro": true])
}

func gettingStartedLocalIngest() {
    #if DEBUG
    let endpoint = URL(string: "http://127.0.0.1:4001")!
    #else
    let endpoint = SimpleDataLogsClient.Configuration.defaultEndpoint
    #endif
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…", endpoint: endpoint, autocapture: .all, usesInstallID: true)
}

// SimpleDataLogs.md (the catalog's landing page).
func landingPage(userAllowsUsageStatistics: Bool, anonymousDeviceID: String) {
    SimpleDataLogs.setEnabled(userAllowsUsageStatistics)
    SimpleDataLogs.setDeviceID(anonymousDeviceID)
    SimpleDataLogs.configure(ingestKey: "sdl_pub_…")

    SimpleDataLogs.track("screenshot_taken", properties: ["type": "area"])
}
