// The code samples of UsingItInAServer.md, compiled. The swift-service-lifecycle names
// (`Service`, `ServiceGroup`, `gracefulShutdown()`, `Logger`) come from `ServiceGroupHarness.swift`,
// which reproduces that library's semantics; `ServiceLifecycleTests` runs `AnalyticsService`
// under it. None of the functions here is called.
import Foundation
import SimpleDataLogs

// "Make a client".
func serverMakeAClient() {
    let analytics = SimpleDataLogsClient()
    var configuration = SimpleDataLogsClient.Configuration.server(
        ingestKey: "sdl_sec_…",
        storageDirectory: URL(fileURLWithPath: "/var/lib/myserver/analytics")
    )
    configuration.maxConcurrentRequests = 8   // for long round trips to the edge
    analytics.configure(configuration)
}

// "Track for many devices".
func serverTrackPerEvent(analytics: SimpleDataLogsClient, request: SnippetRequest) {
    analytics.track("order_placed", properties: ["total_cents": 1299], deviceID: request.deviceID)
}

// "One event, however many times it is handled".
func serverDerivedEventID(analytics: SimpleDataLogsClient, webhook: SnippetWebhook) {
    analytics.track(
        "payment_succeeded", properties: ["plan": "pro"],
        eventID: UUID(eventKey: webhook.id, in: "stripe"), deviceID: webhook.customerID
    )
}

/// A webhook as a server framework decodes it, for the derived event id's sample.
struct SnippetWebhook {
    var id: String
    var customerID: String
}

func serverTrackPerTask(analytics: SimpleDataLogsClient, request: SnippetRequest) async throws {
    try await analytics.withDeviceID(request.deviceID) {
        try await handle(request)   // every track in here carries request.deviceID
    }
}

// "Rotate the ingest key".
func serverRotateKey(analytics: SimpleDataLogsClient, secrets: SnippetSecrets) {
    secrets.onChange { newKey in
        analytics.rotateIngestKey(to: newKey)
    }
}

func serverPreviousKeys(analytics: SimpleDataLogsClient, newKey: String, oldKey: String) {
    var configuration = SimpleDataLogsClient.Configuration.server(ingestKey: newKey)
    configuration.previousIngestKeys = [oldKey]
    analytics.configure(configuration)
}

/// A secrets store that calls back with a new value, for the key rotation's sample.
struct SnippetSecrets {
    func onChange(_ body: @escaping @Sendable (String) -> Void) {}
}

// "Wait instead of skipping".
struct SnippetOrder { var customerID: String }

func serverImport(analytics: SimpleDataLogsClient, orders: [SnippetOrder]) async -> Int {
    var skipped = 0
    for order in orders {
        let outcome = await analytics.track("order_imported", properties: ["source": "legacy"], deviceID: order.customerID, waitingUpTo: .seconds(5))
        if outcome == .skippedBacklogFull { skipped += 1 }
    }
    return skipped
}

// "swift-service-lifecycle".
struct AnalyticsService: Service {
    let client: SimpleDataLogsClient

    func run() async throws {
        // Returns at the group's graceful shutdown (or cancellation), after one bounded send.
        await client.run(until: { try? await gracefulShutdown() })
    }
}

func serverServiceGroup(analytics: SimpleDataLogsClient, httpServer: some Service, logger: Logger) async throws {
    let group = ServiceGroup(
        services: [AnalyticsService(client: analytics), httpServer],
        gracefulShutdownSignals: [.sigterm],
        logger: logger
    )
    try await group.run()
}
