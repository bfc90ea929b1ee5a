import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Validation: what reaches the journal stays inside the ingest's limits", .stuckTestLimit)
struct ValidationTests {
    static let day: TimeInterval = 86_400

    @Test("back-dating: exactly 3,650 days is kept, just over is dropped with a log line, the future is sent as now")
    func backdating() async throws {
        try await withTestClient { test in
            let now = test.wallClock.now()
            test.client.track("at-limit", at: now.addingTimeInterval(-3_650 * Self.day))
            test.client.track("just-over", at: now.addingTimeInterval(-3_650 * Self.day - 0.001))
            test.client.track("future", at: now.addingTimeInterval(3_600))
            test.client.track("yesterday", at: now.addingTimeInterval(-Self.day))
            // The clock moves on before the pipeline looks: the age is judged at track() time.
            test.wallClock.advance(by: 5)
            let events = try await test.flushedEvents()
            let byName = Dictionary(uniqueKeysWithValues: events.map { ($0.name, $0.ts) })
            #expect(byName["at-limit"] == now.addingTimeInterval(-3_650 * Self.day).millisecondsSince1970)
            #expect(byName["just-over"] == nil)
            #expect(byName["future"] == now.millisecondsSince1970)
            #expect(byName["yesterday"] == now.addingTimeInterval(-Self.day).millisecondsSince1970)
            #expect(test.client.counters.invalid == 1)
            #expect(test.log.lines(containing: "3,650 days").count == 1)
            #expect(test.client.counters.isBalanced)
        }
    }

    @Test("NaN and infinity are dropped: the property, not the event")
    func nonFiniteNumbers() async throws {
        try await withTestClient { test in
            test.client.track("numbers", properties: ["nan": .double(.nan), "inf": .double(.infinity), "minus": .double(-.infinity), "fine": 1.5])
            let event = try #require(try await test.flushedEvents().first)
            #expect(event.props.keys.sorted() == ["fine"])
            #expect(test.log.lines(containing: "NaN").count == 1)
        }
    }

    @Test("event names: empty, over 200 bytes and control characters drop the event; 200 bytes of non-ASCII is kept")
    func eventNames() async throws {
        try await withTestClient { test in
            let twoHundredBytes = String(repeating: "é", count: 100)
            test.client.track("")
            test.client.track(String(repeating: "x", count: 201))
            test.client.track("tab\tname")
            test.client.track("del\u{7F}name")
            test.client.track(twoHundredBytes)
            let events = try await test.flushedEvents()
            #expect(events.map { $0.name } == [twoHundredBytes])
            #expect(test.client.counters.invalid == 4)
            #expect(test.client.counters.isBalanced)
        }
    }

    @Test("property keys: empty or over 200 bytes are dropped; the rest of the event is kept")
    func propertyKeys() async throws {
        try await withTestClient { test in
            test.client.track("keys", properties: ["": 1, String(repeating: "k", count: 201): 2, String(repeating: "k", count: 200): 3])
            let event = try #require(try await test.flushedEvents().first)
            #expect(event.props.keys.map(\.count) == [200])
            #expect(test.log.lines(containing: "empty property key").count == 1)
            #expect(test.log.lines(containing: "property key over 200").count == 1)
        }
    }

    @Test("string values over 8,192 bytes are cut on a character boundary")
    func longStrings() async throws {
        try await withTestClient { test in
            // 4,097 two-byte characters: 8,194 bytes; the cut must not split the last one.
            test.client.track("long", properties: ["text": .string(String(repeating: "é", count: 4_097)), "emoji": .string(String(repeating: "👍", count: 2_049))])
            let event = try #require(try await test.flushedEvents().first)
            let text = try #require(event.string("text"))
            #expect(text.utf8.count == 8_192 && text.count == 4_096)
            let emoji = try #require(event.string("emoji"))
            #expect(emoji.utf8.count == 8_192 && emoji.count == 2_048)
        }
    }

    @Test("more than 200 properties: the event's own keys are kept first, then the defaults' in sorted order (issue 23: precedence, not the alphabet)")
    func tooManyProperties() async throws {
        try await withTestClient { test in
            test.client.setDefaultProperties(Dictionary(uniqueKeysWithValues: (0..<150).map { (String(format: "d%03d", $0), PropertyValue.int(Int64($0))) }))
            test.client.track("wide", properties: Dictionary(uniqueKeysWithValues: (0..<100).map { (String(format: "e%03d", $0), PropertyValue.int(Int64($0))) }))
            let event = try #require(try await test.flushedEvents().first)
            #expect(event.props.count == 200)
            #expect((0..<100).allSatisfy { event.props[String(format: "e%03d", $0)] != nil })
            #expect(event.props["d099"] != nil && event.props["d100"] == nil && event.props["d149"] == nil)
        }
    }

    @Test("app_state travels as the top-level field; an invalid value is dropped with a log line")
    func appState() async throws {
        try await withTestClient { test in
            test.client.track("sync_finished", properties: ["app_state": "background"])
            test.client.track("odd", properties: ["app_state": "asleep", "x": 1])
            let events = try await test.flushedEvents()
            #expect(events[0].appState == "background")
            #expect(events[0].props["app_state"] == nil)
            // The invalid value is dropped; the SDK's own activity stamp stands in (a server: background).
            #expect(events[1].appState == "background" && events[1].props["app_state"] == nil && events[1].props["x"] == 1)
            #expect(test.log.lines(containing: "app_state other than").count == 1)
        }
    }

    @Test("device ids: empty or over 200 bytes are refused; events then carry none")
    func deviceIDs() async throws {
        try await withTestClient { test in
            test.client.setDeviceID(String(repeating: "d", count: 201))
            test.client.track("a")
            test.client.track("b", deviceID: "")
            let events = try await test.flushedEvents()
            #expect(events.allSatisfy { $0.deviceID == nil })
            #expect(test.log.lines(containing: "setDeviceID").count == 1)
        }
    }

    @Test("events too large for a 256 KiB request on their own are dropped at intake, counted, and logged once")
    func tooLarge() async throws {
        try await withTestClient { test in
            let big = String(repeating: "x", count: 8_192)
            let properties = Dictionary(uniqueKeysWithValues: (0..<40).map { ("p\($0)", PropertyValue.string(big)) })
            for _ in 0..<20 { test.client.track("huge", properties: properties) }
            test.client.track("small")
            let events = try await test.flushedEvents()
            #expect(events.map { $0.name } == ["small"])
            #expect(test.client.counters.droppedTooLarge == 20)
            #expect(test.client.counters.isBalanced)
            #expect(test.log.lines.filter { $0.message.contains("too large for a 256 KiB request") }.count == 1, "one line, not one per event")
        }
    }

    @Test("hostile strings are escaped into valid JSON")
    func escaping() async throws {
        try await withTestClient { test in
            let nasty = "quote\" backslash\\ newline\n nul\u{0} bell\u{7} emoji 👍 \u{2028}"
            test.client.track("escape", properties: ["nasty": .string(nasty), nasty: true])
            let event = try #require(try await test.flushedEvents().first)
            #expect(event.props["nasty"] == .string(nasty))
            #expect(event.props[nasty] == true)
        }
    }
}

@Suite("PropertyValue", .stuckTestLimit)
struct PropertyValueTests {
    @Test("literals of all four kinds")
    func literals() {
        let properties: [String: PropertyValue] = ["s": "text", "i": 412, "d": 0.5, "b": true]
        #expect(properties["s"] == .string("text"))
        #expect(properties["i"] == .int(412))
        #expect(properties["d"] == .double(0.5))
        #expect(properties["b"] == .bool(true))
    }

    @Test("bridging Swift values")
    func bridgingSwiftValues() {
        #expect(PropertyValue(bridging: "s") == .string("s"))
        #expect(PropertyValue(bridging: Substring("sub")) == .string("sub"))
        #expect(PropertyValue(bridging: true) == .bool(true))
        #expect(PropertyValue(bridging: 7) == .int(7))
        #expect(PropertyValue(bridging: Int8(-3)) == .int(-3))
        #expect(PropertyValue(bridging: UInt32(9)) == .int(9))
        #expect(PropertyValue(bridging: UInt64.max) == nil)
        #expect(PropertyValue(bridging: 2.5) == .double(2.5))
        #expect(PropertyValue(bridging: Float(1.5)) == .double(1.5))
        #expect(PropertyValue(bridging: Date()) == nil)
        #expect(PropertyValue(bridging: [1, 2]) == nil)
        #expect(PropertyValue(bridging: Optional<Int>.none as Any) == nil)
    }

    @Test("bridging Foundation numbers keeps booleans boolean and integers integral")
    func bridgingFoundationNumbers() throws {
        #expect(PropertyValue(bridging: NSNumber(value: true)) == .bool(true))
        #expect(PropertyValue(bridging: NSNumber(value: false)) == .bool(false))
        #expect(PropertyValue(bridging: NSNumber(value: 1)) == .int(1))
        #expect(PropertyValue(bridging: NSNumber(value: Int8(1))) == .int(1))
        #expect(PropertyValue(bridging: NSNumber(value: 0)) == .int(0))
        #expect(PropertyValue(bridging: NSNumber(value: 2.25)) == .double(2.25))
        #expect(PropertyValue(bridging: NSNumber(value: UInt64.max)) == nil)
        // What a Firebase-style `[String: Any]` from JSON looks like.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(#"{"flag":true,"count":3,"ratio":0.5,"name":"n"}"#.utf8)) as? [String: Any])
        let bridged = parsed.compactMapValues(PropertyValue.init(bridging:))
        #expect(bridged == ["flag": .bool(true), "count": .int(3), "ratio": .double(0.5), "name": .string("n")])
    }
}
