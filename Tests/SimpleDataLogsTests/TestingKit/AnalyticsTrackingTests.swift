import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// App code written against the protocol, as an app or a server would write it.
private struct SignupFlow {
    let analytics: any AnalyticsTracking

    func finish(userID: String, plan: String) {
        analytics.setDeviceID(userID)
        analytics.setDefaultProperties(["plan": .string(plan)])
        analytics.trackScreen("welcome")
        analytics.track("signup_completed")
        analytics.track("invite_sent", properties: ["count": .int(2)], deviceID: "invitee-device")
    }
}

@Suite("AnalyticsTracking: code written against it runs on the real client and on the recording fake", .stuckTestLimit)
struct AnalyticsTrackingTests {
    @Test("with the real client, the protocol's calls reach the ingest: names, ids, default properties, screen views")
    func realClient() async throws {
        let transport = RecordingTransport()
        await withTestClient(endpoint: RecordingTransportTests.unreachable, adjust: { $0.transport = transport }) { test in
            SignupFlow(analytics: test.client).finish(userID: "user-device", plan: "pro")
            let tracker: any AnalyticsTracking = test.client
            let result = await tracker.flush()
            #expect(result.delivered == 3 && result.remaining == 0)
            let events = transport.receivedEvents
            #expect(events.map(\.name) == ["screen_view", "signup_completed", "invite_sent"])
            #expect(events.map(\.deviceID) == ["user-device", "user-device", "invitee-device"])
            #expect(events.first?.properties == ["screen": "welcome", "plan": "pro"])
            #expect(events.last?.properties == ["count": .int(2), "plan": "pro"])
        }
    }

    @Test("with RecordingTracker, the same code's calls are recorded in order, word for word")
    func fakeRecordsInOrder() {
        let tracker = RecordingTracker()
        SignupFlow(analytics: tracker).finish(userID: "user-device", plan: "pro")
        #expect(tracker.calls == [
            .setDeviceID("user-device"),
            .setDefaultProperties(["plan": "pro"]),
            .trackScreen("welcome", properties: [:]),
            .track(.init("signup_completed")),
            .track(.init("invite_sent", properties: ["count": .int(2)], deviceID: "invitee-device")),
        ])
        #expect(tracker.events.map(\.name) == ["screen_view", "signup_completed", "invite_sent"])
        #expect(tracker.events.first?.properties == ["screen": "welcome"], "the screen view as the client makes it; no defaults merged")
    }

    @Test("the defaulted forms forward every argument to the requirements, on an any AnalyticsTracking as on the client")
    func shortFormsForward() async {
        let tracker = RecordingTracker()
        let analytics: any AnalyticsTracking = tracker
        let date = Date(timeIntervalSince1970: 1_796_000_000)
        let id = UUID()
        analytics.track("plain")
        analytics.track("backdated", at: date)
        analytics.track("backdated_props", properties: ["k": "v"], at: date)
        analytics.track("backdated_id", properties: [:], at: date, eventID: id)
        analytics.track("own_id", eventID: id)
        analytics.track("for_device", deviceID: "d")
        analytics.track("for_device_full", properties: [:], at: date, eventID: id, deviceID: "d")
        analytics.trackScreen("home")
        analytics.reset()
        analytics.setEnabled(false)
        analytics.setEnabled(true)
        let flushed = await analytics.flush()
        #expect(tracker.calls == [
            .track(.init("plain")),
            .track(.init("backdated", at: date)),
            .track(.init("backdated_props", properties: ["k": "v"], at: date)),
            .track(.init("backdated_id", at: date, eventID: id)),
            .track(.init("own_id", eventID: id)),
            .track(.init("for_device", deviceID: "d")),
            .track(.init("for_device_full", at: date, eventID: id, deviceID: "d")),
            .trackScreen("home", properties: [:]),
            .reset(deviceID: nil),
            .setEnabled(false),
            .setEnabled(true),
            .flush,
        ])
        #expect(flushed == FlushResult(delivered: 8, remaining: 0), "as if the ingest took every event since the last flush")
        #expect(await analytics.flush() == FlushResult(delivered: 0, remaining: 0))
        tracker.removeAllCalls()
        #expect(tracker.calls.isEmpty)
    }

    @Test("the fake is safe from many tasks at once: every call is recorded")
    func fakeUnderConcurrency() async {
        let tracker = RecordingTracker()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<100 { tracker.track("e", properties: ["task": .int(Int64(task)), "index": .int(Int64(index))]) }
                }
            }
        }
        #expect(tracker.events.count == 800)
        for task in 0..<8 {
            let indexes = tracker.events.filter { $0.properties["task"] == .int(Int64(task)) }.compactMap { $0.properties["index"] }
            #expect(indexes == (0..<100).map { PropertyValue.int(Int64($0)) }, "each task's calls in its order")
        }
    }
}
