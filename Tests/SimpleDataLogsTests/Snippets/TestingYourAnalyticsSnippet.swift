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

// The article shows this test at the top level; here it sits in a suite that carries the
// suite's time limit and the sockets tag (a LocalIngest), so the fast inner loop skips it.
@Suite("TestingYourAnalytics.md: the LocalIngest sample", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct TestingYourAnalyticsLocalIngestSample {
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
}

// The article's later samples: RecordingTransport in a unit test, a view model and a server
// handler that take `any AnalyticsTracking`, and their tests with RecordingTracker. The article
// shows the tests at the top level; here they sit in a suite with the suite's time limit.

@MainActor
final class CheckoutModel {
    private let analytics: any AnalyticsTracking

    init(analytics: any AnalyticsTracking = SimpleDataLogs.shared) {
        self.analytics = analytics
    }

    func placeOrder(totalCents: Int64) {
        analytics.track("order_placed", properties: ["total_cents": .int(totalCents)])
    }
}

struct SignupHandler {
    let analytics: any AnalyticsTracking

    func handle(userID: String, plan: String) async throws {
        // … create the account …
        analytics.track("signup_completed", properties: ["plan": .string(plan)], deviceID: userID)
    }
}

@Suite("TestingYourAnalytics.md: the testing kit's samples", .stuckTestLimit)
struct TestingKitSamples {
    @Test func checkoutSendsTheOrderWithoutASocket() async throws {
        let transport = RecordingTransport()
        let analytics = SimpleDataLogsClient(clock: ManualClock(), wallClock: SettableWallClock())
        analytics.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_test",
            storageDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString),
            transport: transport
        ))
        try await Checkout(analytics: analytics).placeOrder(total: 1299)
        await analytics.flush()
        #expect(transport.receivedEvents.map(\.name) == ["order_placed"])
        #expect(transport.requests.first?.header("Content-Encoding") == "gzip")
        await analytics.shutdown()
    }

    @Test @MainActor func placingAnOrderTracksIt() {
        let tracker = RecordingTracker()
        CheckoutModel(analytics: tracker).placeOrder(totalCents: 1299)
        #expect(tracker.events == [.init("order_placed", properties: ["total_cents": .int(1299)])])
    }

    @Test func signupTracksThePlanForTheUser() async throws {
        let tracker = RecordingTracker()
        try await SignupHandler(analytics: tracker).handle(userID: "user-42", plan: "pro")
        #expect(tracker.calls == [.track(.init("signup_completed", properties: ["plan": "pro"], deviceID: "user-42"))])
    }
}
