import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Sessions and activity through the pipeline", .stuckTestLimit)
struct SessionPipelineTests {
    @Test("session_start, session_id on every event, session_end after a quiet gap, on the injected wall clock")
    func sessionsEndToEnd() async throws {
        try await withTestClient(adjust: {
            $0.autocapture = .sessions
            $0.sessionMode = .inactivityTimeout(minutes: 30)
        }) { test in
            test.client.track("first")
            test.wallClock.advance(by: 60)
            test.client.track("second")
            test.wallClock.advance(by: 31 * 60)
            test.client.track("third")
            let events = try await test.flushedEvents()
            #expect(events.map { $0.name } == ["session_start", "first", "second", "session_end", "session_start", "third"])
            #expect(events[3].props["duration_s"] == 60)
            #expect(events[1].sessionID == events[0].sessionID)
            #expect(events[5].sessionID != events[1].sessionID)
            #expect(test.client.counters.isBalanced, "\(test.client.counters)")
        }
    }

    @Test("a process that quits mid-session has the session ended at the next launch, at its last activity")
    func quitMidSession() async throws {
        let directory = TemporaryDirectory()
        let first = TestClient(directory: directory, adjust: { $0.autocapture = .sessions })
        first.client.track("a")
        first.wallClock.advance(by: 42)
        first.client.track("b")
        await first.drain()
        let lastActivity = first.wallClock.now().millisecondsSince1970
        await shutDown(first.client)

        try await withTestClient(directory: directory, adjust: { $0.autocapture = .sessions }) { second in
            await second.drain()
            let events = try second.journaledEvents()
            let end = try #require(events.first { $0.name == "session_end" })
            #expect(end.ts == lastActivity)
            #expect(end.props["duration_s"] == 42)
            #expect(end.sessionID == events.first { $0.name == "a" }?.sessionID)
            #expect(second.client.counters.isBalanced, "\(second.client.counters)")
        }
    }

    @Test("app_state and engaged_ms from reported activity; the caller's app_state wins; back-dated events carry neither; .off turns both off")
    func activity() async throws {
        try await withTestClient { test in
            test.client.track("server-style")
            test.client.reportActivity(.foreground)
            test.wallClock.advance(by: 2)
            test.client.track("in-front")
            test.client.track("mine", properties: ["app_state": "background"])
            test.client.track("old", at: test.wallClock.now().addingTimeInterval(-60))
            let events = try await test.flushedEvents()
            #expect(events[0].appState == "background" && events[0].engagedMilliseconds == 0)
            #expect(events[1].appState == "active" && events[1].engagedMilliseconds == 2_000)
            #expect(events[2].appState == "background")
            #expect(events[3].appState == nil && events[3].engagedMilliseconds == nil)
        }

        try await withTestClient(adjust: { $0.activity = .off }) { off in
            off.client.track("plain")
            off.client.track("mine", properties: ["app_state": "active"])
            let offEvents = try await off.flushedEvents()
            #expect(offEvents[0].appState == nil && offEvents[0].engagedMilliseconds == nil)
            #expect(offEvents[1].appState == "active" && offEvents[1].engagedMilliseconds == nil)
        }
    }

    @Test("app_launched on every launch, with is_first_launch true only the first time per storage folder")
    func appLaunches() async throws {
        let directory = TemporaryDirectory()
        for launch in 0..<2 {
            let test = TestClient(directory: directory, adjust: { $0.autocapture = [.appLaunches, .sessions] })
            await test.drain()
            let launched = try test.journaledEvents().filter { $0.name == "app_launched" }
            #expect(launched.count == launch + 1)
            #expect(launched.last?.props["is_first_launch"] == .bool(launch == 0))
            #expect(launched.last?.sessionID != nil, "a launch starts a session without any track call")
            await shutDown(test.client)
        }
        directory.remove()
    }

    @Test("per-device sessions on a server: two devices, two sessions")
    func perDeviceSessions() async throws {
        try await withTestClient(adjust: { $0.autocapture = .sessions }) { test in
            test.client.track("req", deviceID: "device-a")
            test.client.track("req", deviceID: "device-b")
            test.client.withDeviceID("device-a") { test.client.track("req") }
            let events = try await test.flushedEvents().filter { $0.name == "req" }
            let a = Set(events.filter { $0.deviceID == "device-a" }.compactMap { $0.sessionID })
            let b = Set(events.filter { $0.deviceID == "device-b" }.compactMap { $0.sessionID })
            #expect(a.count == 1 && b.count == 1 && a != b)
        }
    }
}
