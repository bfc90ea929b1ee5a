// TestingYourAnalytics.md's sample, compiled and run as a real test: a checkout that tracks one
// event, checked against a LocalIngest.
import Foundation
import Testing
import SimpleDataLogs
import SimpleDataLogsTesting

/// The app code the article's test exercises.
struct Checkout {
    let analytics: SimpleDataLogsClient

    func placeOrder(total: Int64) async throws {
        analytics.track("order_placed", properties: ["total_cents": .int(total)])
    }
}

@Test func checkoutTracksTheOrder() async throws {
    let ingest = try LocalIngest()
    defer { ingest.stop() }
    let analytics = SimpleDataLogsClient(clock: ManualClock(), wallClock: SettableWallClock())
    analytics.configure(SimpleDataLogsClient.Configuration(
        ingestKey: "sdl_pub_test", endpoint: ingest.endpoint,
        storageDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    ))
    try await Checkout(analytics: analytics).placeOrder(total: 1299)
    await analytics.flush()
    #expect(ingest.receivedEvents.map(\.name) == ["order_placed"])
    await analytics.shutdown()
}
