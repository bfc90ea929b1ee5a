// The samples of the DocC article "Middleware, identity, timing and the offline switch"
// (EventsInDepth.md), compiled. `DocSnippetTests` checks each block appears here line for line.
// None of these functions is called; `EventMiddleware.sample` is, by MiddlewareTests.
import Foundation
import SimpleDataLogs
import Testing

/// What the samples call a tenant's request.
struct TenantRequest: Sendable {
    var id: String
    var tenant: String
    var deviceID: String
}

func exportRows() async throws -> Int { 0 }
func handleTenantRequest(_ request: TenantRequest) async throws {}

// "Event middleware".
func eventsInDepthMiddleware() {
    var configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_…")
    configuration.middleware = [
        .enrich("build") { _ in ["build": "2026.12.1"] },
        .scrub("no personal data", keys: ["email", "phone"]),
        .drop("no debug events") { $0.name.hasPrefix("debug_") },
        .sample("scroll", keeping: 0.1),
    ]
    SimpleDataLogs.configure(configuration)
}

// "Event middleware": testing a step on its own (run by EventPathTests.stepOnItsOwn too).
func eventsInDepthTestingAStep() {
    var event = OutgoingEvent(name: "signed_up", properties: ["email": "a@example.com", "plan": "pro"])
    #expect(EventMiddleware.scrub("no emails", keys: ["email"]).run(&event) == .keep)
    #expect(event.properties == ["plan": "pro"])
}

// "Event middleware": sampling.
extension EventMiddleware {
    static func sample(_ name: String, keeping fraction: Double) -> EventMiddleware {
        .drop("sample \(name)") { event in
            guard event.name == name else { return false }
            // An event id's last 62 bits are random (a version-7 UUID): a uniform number in 0..<1.
            let bytes = withUnsafeBytes(of: event.eventID.uuid) { Array($0.suffix(8)) }
            let random = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & (1 << 62 - 1)
            return Double(random) / Double(1 << 62 as UInt64) >= fraction
        }
    }
}

// "Logout: reset()".
func userLoggedOut() {
    SimpleDataLogs.track("logged_out")
    SimpleDataLogs.reset()
}

// "An install id the SDK keeps".
func eventsInDepthInstallID() {
    var withInstallID = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_…", autocapture: .all)
    withInstallID.usesInstallID = true
    SimpleDataLogs.configure(withInstallID)
}

// "Timed events".
func eventsInDepthTimed() async throws -> Int {
    let rows = try await SimpleDataLogs.shared.timed("export_finished", properties: ["format": "csv"]) {
        try await exportRows()
    }
    return rows
}

// "Per-request properties on a server".
func eventsInDepthRequest(analytics: SimpleDataLogsClient, request: TenantRequest) async throws {
    try await analytics.withProperties(["request_id": .string(request.id), "tenant": .string(request.tenant)]) {
        try await analytics.withDeviceID(request.deviceID) {
            try await handleTenantRequest(request)
        }
    }
}

// "The offline switch".
func networkChanged(isExpensive: Bool) {
    SimpleDataLogs.shared.setOffline(isExpensive)
}
