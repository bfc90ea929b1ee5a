import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Every public call and what it writes", .stuckTestLimit, .skippedInFastLoop)
struct PublicCallsTests {
    @Test("track writes name, a lowercase v7 event_id, ts from the wall clock and the props")
    func trackWritesTheEvent() async throws {
        try await withTestClient { test in
            test.client.track("screenshot_taken", properties: ["type": "area", "count": 3, "ratio": 0.5, "pro": true])
            let events = try await test.flushedEvents()
            try #require(events.count == 1)
            let event = events[0]
            #expect(event.name == "screenshot_taken")
            let id = event.eventID
            #expect(id.count == 36 && id == id.lowercased())
            #expect(Array(id)[14] == "7", "a version-7 UUID")
            #expect(event.ts == test.wallClock.now().millisecondsSince1970)
            #expect(event.props["type"] == "area")
            #expect(event.props["count"] == 3)
            #expect(event.props["ratio"] == 0.5)
            #expect(event.props["pro"] == true)
            #expect(event.deviceID == nil)
            #expect(test.client.counters.isBalanced)
        }
    }

    @Test("setDefaultProperties replaces the previous defaults rather than merging")
    func defaultPropertiesReplace() async throws {
        try await withTestClient { test in
            test.client.setDefaultProperties(["app_version": "1.0", "distribution": "website"])
            test.client.track("first")
            test.client.setDefaultProperties(["app_version": "1.1"])
            test.client.track("second")
            let events = try await test.flushedEvents()
            #expect(events[0].props["distribution"] == "website")
            #expect(events[1].props["app_version"] == "1.1")
            #expect(events[1].props["distribution"] == nil, "replaced, not merged")
        }
    }

    @Test("the event's own property wins over a default of the same name")
    func ownPropertyWins() async throws {
        try await withTestClient { test in
            test.client.setDefaultProperties(["plan": "free", "app_version": "1.0"])
            test.client.track("upgrade", properties: ["plan": "pro"])
            let event = try #require(try await test.flushedEvents().first)
            #expect(event.props["plan"] == "pro")
            #expect(event.props["app_version"] == "1.0")
        }
    }

    @Test("setDeviceID(nil) makes later events carry no device_id at all")
    func clearingTheDeviceID() async throws {
        try await withTestClient { test in
            test.client.setDeviceID("device-1")
            test.client.track("with")
            test.client.setDeviceID(nil)
            test.client.track("without")
            let events = try await test.flushedEvents()
            #expect(events[0].deviceID == "device-1")
            #expect(events[1].deviceID == nil)
        }
    }

    @Test("a per-event device id and a task-local scope win over setDeviceID, in that order")
    func perEventAndScopedDeviceIDs() async throws {
        try await withTestClient { test in
            test.client.setDeviceID("app-wide")
            test.client.track("plain")
            test.client.track("per-event", deviceID: "request-device")
            await test.client.withDeviceID("scoped") {
                test.client.track("scoped")
                test.client.track("scoped-but-explicit", deviceID: "explicit")
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { test.client.track("child-task") }
                }
            }
            test.client.track("after-scope")
            let byName = Dictionary(uniqueKeysWithValues: try await test.flushedEvents().map { ($0.name, $0.deviceID) })
            #expect(byName["plain"] == "app-wide")
            #expect(byName["per-event"] == "request-device")
            #expect(byName["scoped"] == "scoped")
            #expect(byName["scoped-but-explicit"] == "explicit")
            #expect(byName["child-task"] == "scoped")
            #expect(byName["after-scope"] == "app-wide")
        }
    }

    @Test("track with an eventID sends that id; trackScreen sends screen_view with a screen prop")
    func eventIDAndScreens() async throws {
        try await withTestClient { test in
            let id = UUID()
            test.client.track("purchase", eventID: id)
            test.client.trackScreen("Settings", properties: ["from": "menu"])
            let events = try await test.flushedEvents()
            #expect(events[0].eventID == id.uuidString.lowercased())
            #expect(events[1].name == "screen_view")
            #expect(events[1].props["screen"] == "Settings")
            #expect(events[1].props["from"] == "menu")
        }
    }

    @Test("10,000 interleaved setDeviceID and track calls: each event carries the id set just before it", .tags(.burst))
    func interleavedDeviceIDs() async throws {
        try await withTestClient { test in
            for index in 0..<10_000 {
                test.client.setDeviceID("device-\(index)")
                test.client.track("tick", properties: ["index": .int(Int64(index))])
                // A debug build's writer is slower than this loop; stay under the 5,000 backlog.
                if index % 2_000 == 1_999 { await test.drain() }
            }
            let events = try await test.flushedEvents()
            #expect(events.count == 10_000)
            let mismatches = try events.filter { $0.deviceID != "device-\(try $0.requiredInt("index"))" }
            #expect(mismatches.isEmpty)
            #expect(test.client.counters.isBalanced, "\(test.client.counters)")
        }
    }

    @Test("a second configure is ignored with one log line")
    func configureTwice() async throws {
        try await withTestClient { test throws in
            let other = TemporaryDirectory()
            test.client.configure(ingestKey: "sdl_pub_other000000000", storageDirectory: other.url)
            test.client.track("one")
            #expect(try await test.flushedEvents().count == 1)
            #expect(FileManager.default.fileExists(atPath: other.path) == false)
            #expect(test.log.lines(containing: "configure was called again").count == 1)
        }
    }

    @Test("a key with neither prefix gets one configuration error, and events are still journaled")
    func badKeyPrefix() async throws {
        try await withTestClient(key: "not-a-real-key-1234567890") { test throws in
            test.client.track("kept")
            #expect(try await test.flushedEvents().count == 1)
            let lines = test.log.lines(containing: "neither sdl_pub_ nor sdl_sec_")
            #expect(lines.count == 1)
            #expect(lines.first?.level == .error)
            #expect(lines.first?.message.contains("not-a-real-key-1234567890") == false, "the key is never logged in full")
        }
    }

    @Test("track inside a cancelled task still records")
    func trackInCancelledTask() async throws {
        try await withTestClient { test throws in
            let task = Task {
                while !Task.isCancelled { await Task.yield() }
                test.client.track("after-cancel")
            }
            task.cancel()
            await task.value
            #expect(try await test.flushedEvents().map { $0.name } == ["after-cancel"])
        }
    }
}
