import Foundation
import Synchronization
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23, the smaller event-path findings: device ids refused without a trace, properties past
/// 200 kept against their precedence, session events that bypassed the middleware, timed events'
/// keys, and the testing promises of `AnalyticsTracking` and `OutgoingEvent`.
@Suite("Hardening: the event path keeps its documented promises", .stuckTestLimit)
struct EventPathTests {
    static let tooLong = String(repeating: "d", count: 201)

    @Test("a refused device id, per event, by withDeviceID or by a step: the event is kept without one (never the client's), one line per source, counted")
    func refusedDeviceIDs() async throws {
        let rewrite = EventMiddleware("hash device") { event in
            if event.name == "by_step" { event.deviceID = "" }
            return .keep
        }
        try await withTestClient(adjust: { $0.middleware = [rewrite] }) { test in
            test.client.setDeviceID("client-device")
            test.client.track("per_event", properties: [:], deviceID: "")
            test.client.withDeviceID(Self.tooLong) { test.client.track("scoped") }
            test.client.withDeviceID("") { test.client.track("scoped_empty") }
            test.client.track("by_step")
            test.client.track("plain")
            let events = try await test.flushedEvents()
            #expect(events.map(\.name) == ["per_event", "scoped", "scoped_empty", "by_step", "plain"])
            #expect(events.map(\.deviceID) == [nil, nil, nil, nil, "client-device"], "kept, without the refused id and without the client's")
            let counters = test.client.counters
            #expect(counters.clearedDeviceIDs == 4 && counters.isBalanced, "\(counters)")
            let lines = test.log.lines.map(\.message).filter { $0.contains("clearedDeviceIDs") }
            #expect(lines.count == 2, "one line per source: \(lines)")
            #expect(lines.contains { $0.contains("track(deviceID:) or withDeviceID") })
            #expect(lines.contains { $0.contains("middleware step") })
        }
    }

    @Test("past 200 merged properties the event's own keys are kept first, then the scope's, then the defaults, whatever their names")
    func propertyPrecedence() async throws {
        func keys(_ prefix: String, _ count: Int) -> [String: PropertyValue] {
            Dictionary(uniqueKeysWithValues: (0..<count).map { (String(format: "\(prefix)%03d", $0), PropertyValue.int(Int64($0))) })
        }
        try await withTestClient { test in
            test.client.setDefaultProperties(keys("a_default_", 200))
            // Own keys sort last: the old rule (first 200 in sorted order) dropped exactly them.
            test.client.track("own_over_defaults", properties: ["z_own": "mine"])
            test.client.withProperties(keys("b_scope_", 120)) {
                test.client.track("own_over_scope_over_defaults", properties: ["z_own": "mine"])
            }
            let events = try await test.flushedEvents()
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.props.count == 200 })
            #expect(events.allSatisfy { $0.props["z_own"] == "mine" }, "the event's own property survives")
            let second = events[1].props
            #expect(second.keys.filter { $0.hasPrefix("b_scope_") }.count == 120, "the whole scope under the event's own")
            #expect(second.keys.filter { $0.hasPrefix("a_default_") }.count == 79, "the defaults fill what is left")
            #expect(test.log.lines.contains { $0.message.contains("kept by precedence") })
        }
    }

    @Test("the pure merge: a higher level's keys win and are never left out; a lower level's refused keys take no slot")
    func mergeRule() {
        var problems: [EventValidator.Problem] = []
        var own: [String: PropertyValue] = ["zz": 1, "shared": "own"]
        var lower: [String: PropertyValue] = ["shared": "lower", "": 3]
        for index in 0..<250 { lower[String(format: "k%03d", index)] = .int(Int64(index)) }
        EventValidator.merge(lower, under: &own, problems: &problems)
        #expect(own.count == 200 && own["zz"] == 1 && own["shared"] == "own")
        #expect(own[""] == nil && own["k000"] == 0 && own["k197"] == 197 && own["k198"] == nil)
        #expect(problems.contains(.tooManyProperties) && problems.contains(.emptyPropertyKey))

        problems = []
        var small: [String: PropertyValue] = ["a": 1]
        EventValidator.merge(["a": 2, "b": 3], under: &small, problems: &problems)
        #expect(small == ["a": 1, "b": 3] && problems.isEmpty)
    }

    @Test("session_start and session_end pass the middleware like every other event: seen, scrubbed, dropped and counted")
    func sessionEventsPassTheSteps() async throws {
        let seen = Mutex<[String]>([])
        let steps: [EventMiddleware] = [
            EventMiddleware("watch") { event in
                seen.withLock { $0.append(event.name) }
                event.properties["checked"] = true
                return .keep
            },
            .drop("no session ends") { $0.name == "session_end" },
        ]
        try await withTestClient(adjust: {
            $0.autocapture = .sessions
            $0.sessionMode = .inactivityTimeout(minutes: 30)
            $0.middleware = steps
        }) { test in
            test.client.track("first")
            test.wallClock.advance(by: 31 * 60)
            test.client.track("second")
            let events = try await test.flushedEvents()
            #expect(events.map(\.name) == ["session_start", "first", "session_start", "second"])
            #expect(events.allSatisfy { $0.props["checked"] == true }, "every event that leaves passed the steps")
            #expect(Set(seen.withLock { $0 }) == ["first", "second", "session_start", "session_end"])
            let counters = test.client.counters
            #expect(counters.droppedByStep == ["no session ends": 1] && counters.tracked == 5 && counters.isBalanced, "\(counters)")
        }
    }

    @Test("the session_end of a session an earlier run left open, made at launch, passes the middleware too: seen and scrubbed, or dropped and counted")
    func leftoverSessionEndPassesTheSteps() async throws {
        for dropsEnds in [false, true] {
            let directory = TemporaryDirectory()
            let first = TestClient(directory: directory, adjust: { $0.autocapture = .sessions })
            first.client.track("a")
            await first.drain()
            await shutDown(first.client)  // the session stays open on disk, as after a kill

            let seen = Mutex<[String]>([])
            var steps: [EventMiddleware] = [
                EventMiddleware("watch") { event in
                    seen.withLock { $0.append(event.name) }
                    event.properties["checked"] = true
                    return .keep
                },
            ]
            if dropsEnds { steps.append(.drop("no session ends") { $0.name == "session_end" }) }
            let middleware = steps
            try await withTestClient(directory: directory, adjust: {
                $0.autocapture = .sessions
                $0.middleware = middleware
            }) { second in
                await second.drain()
                let ends = try second.journaledEvents().filter { $0.name == "session_end" }
                let counters = second.client.counters
                #expect(seen.withLock { $0 } == ["session_end"], "the step saw the launch's session_end")
                if dropsEnds {
                    #expect(ends.isEmpty, "dropped by the step")
                    #expect(counters.droppedByStep == ["no session ends": 1] && counters.isBalanced, "\(counters)")
                } else {
                    #expect(ends.count == 1 && ends.allSatisfy { $0.props["checked"] == true }, "changed by the step: \(ends)")
                    #expect(counters.droppedByMiddleware == 0 && counters.isBalanced, "\(counters)")
                }
            }
        }
    }

    @Test("timed: duration_ms, outcome and error_type are the measurement's, replacing the caller's own keys, with one line")
    func timedKeys() async throws {
        try await withTestClient { test in
            test.client.timed("export", properties: ["duration_ms": 99_999, "outcome": "mine", "format": "csv"]) {
                test.clock.advance(by: .milliseconds(40))
            }
            test.client.timed("export", properties: ["outcome": "mine again"]) {}
            let events = try await test.flushedEvents()
            #expect(events.map(\.props) == [
                ["duration_ms": 40, "outcome": "completed", "format": "csv"],
                ["duration_ms": 0, "outcome": "completed"],
            ])
            let lines = test.log.lines.filter { $0.message.contains("replaced them with what it measured") }
            #expect(lines.count == 1, "\(test.log.lines.map(\.message))")
        }
    }

    @Test("AnalyticsTracking's doc counts the requirements a fake implements, and seven suffice")
    func trackingRequirementsCount() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
        let source = try String(contentsOf: root.appendingPathComponent("Sources/SimpleDataLogs/API/AnalyticsTracking.swift"), encoding: .utf8)
        let body = try #require(source.range(of: "public protocol AnalyticsTracking").map { source[$0.upperBound...] })
        let protocolBody = try #require(body.range(of: "\n}\n").map { body[..<$0.lowerBound] })
        let requirements = protocolBody.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("func ") }
        #expect(requirements.count == 7)
        #expect(source.contains("a fake\n/// implements seven small methods") || source.contains("a fake implements seven small methods"))
        // Compiles only while these seven are every requirement: none has a default to fall back on.
        let fake: any AnalyticsTracking = MinimalTracker()
        fake.track("compiles")
    }

    @Test("a step can be tested on its own: OutgoingEvent's initializer and EventMiddleware.run, as the docs show")
    func stepOnItsOwn() {
        var event = OutgoingEvent(name: "signed_up", properties: ["email": "a@example.com", "plan": "pro"])
        #expect(EventMiddleware.scrub("no emails", keys: ["email"]).run(&event) == .keep)
        #expect(event.properties == ["plan": "pro"])
        var debug = OutgoingEvent(name: "debug_tap")
        #expect(EventMiddleware.drop("no debug") { $0.name.hasPrefix("debug_") }.run(&debug) == .drop)
        // The DocC article's sampling step, decided by event id: the same id, the same answer.
        let sample = EventMiddleware.sample("scroll", keeping: 0.5)
        let id = UUID()
        var once = OutgoingEvent(name: "scroll", eventID: id)
        var again = OutgoingEvent(name: "scroll", eventID: id)
        #expect(sample.run(&once) == sample.run(&again))
    }
}

/// A fake with exactly the protocol's requirements and nothing else.
private struct MinimalTracker: AnalyticsTracking {
    func record(_ call: TrackCall) {}
    func trackScreen(_ screen: String, properties: [String: PropertyValue]) {}
    func setDeviceID(_ deviceID: String?) {}
    func setDefaultProperties(_ properties: [String: PropertyValue]) {}
    func setEnabled(_ enabled: Bool) {}
    func reset(deviceID: String?) {}
    func flush() async -> FlushResult { FlushResult(delivered: 0, remaining: 0) }
}
