import Foundation
import Testing
@testable import SimpleDataLogs

/// The validator, the identity rules and the seal policy, tested directly on their values: no
/// client, no pipeline, no files.
@Suite("Rules: the validator, identity and the seal policy", .stuckTestLimit)
struct PureRulesTests {
    static let now: Int64 = 1_796_205_600_000

    static func event(_ name: String = "checkout", properties: [String: PropertyValue] = [:], origin: Event.Origin = .live,
                      timestamp: Int64 = now, deviceIDSource: Event.DeviceIDSource = .inherited) -> Event {
        Event(name: name, id: UUID(), timestamp: timestamp, trackedAt: now, properties: properties, origin: origin, deviceIDSource: deviceIDSource)
    }

    // MARK: EventValidator

    @Test("names: empty, over 200 bytes or with control characters drop the event; 200 bytes and any other Unicode pass",
          arguments: [
              ("", EventValidator.Problem.emptyName), (String(repeating: "a", count: 201), .nameTooLong),
              ("tab\there", .nameHasControlCharacters), ("del\u{7F}", .nameHasControlCharacters), ("c1\u{85}", .nameHasControlCharacters),
          ])
    func droppedNames(name: String, problem: EventValidator.Problem) {
        var event = Self.event(name)
        var problems: [EventValidator.Problem] = []
        #expect(!EventValidator.validate(&event, problems: &problems))
        #expect(problems == [problem])
    }

    @Test("names that pass")
    func passingNames() {
        for name in [String(repeating: "a", count: 200), "café_ordered 🍰", String(repeating: "é", count: 100)] {
            var event = Self.event(name)
            var problems: [EventValidator.Problem] = []
            #expect(EventValidator.validate(&event, problems: &problems) && problems.isEmpty, "\(name.utf8.count) bytes")
        }
    }

    @Test("back-dated: more than 3,650 days ago drops, the future is clamped to now, a live event's time is never judged")
    func backdated() {
        var problems: [EventValidator.Problem] = []
        let day = EventLimits.millisecondsPerDay
        var old = Self.event(origin: .backdated, timestamp: Self.now - 3_651 * day)
        #expect(!EventValidator.validate(&old, problems: &problems) && problems == [.tooOld])
        problems = []
        var edge = Self.event(origin: .backdated, timestamp: Self.now - 3_650 * day)
        #expect(EventValidator.validate(&edge, problems: &problems) && problems.isEmpty)
        var future = Self.event(origin: .backdated, timestamp: Self.now + 60_000)
        #expect(EventValidator.validate(&future, problems: &problems) && problems == [.futureTime] && future.timestamp == Self.now)
        problems = []
        var live = Self.event(timestamp: Self.now + 60_000)
        #expect(EventValidator.validate(&live, problems: &problems) && problems.isEmpty && live.timestamp == Self.now + 60_000)
    }

    @Test("properties are repaired, not refused: bad keys and non-finite numbers dropped, long strings cut on a character boundary")
    func repairedProperties() {
        var event = Self.event(properties: [
            "": .int(1), String(repeating: "k", count: 201): .int(2), "nan": .double(.nan), "inf": .double(.infinity),
            "long": .string(String(repeating: "é", count: 5_000)), "ok": .double(1.5), "flag": .bool(true),
        ])
        var problems: [EventValidator.Problem] = []
        #expect(EventValidator.validate(&event, problems: &problems))
        #expect(Set(event.properties.keys) == ["long", "ok", "flag"])
        if case .string(let cut)? = event.properties["long"] {
            #expect(cut.utf8.count == 8_192 && cut.allSatisfy { $0 == "é" }, "4,096 whole é, no half character")
        } else {
            Issue.record("long was dropped")
        }
        #expect(problems.sorted { $0.rawValue < $1.rawValue } == [
            .emptyPropertyKey, .nonFiniteNumber, .nonFiniteNumber, .propertyKeyTooLong, .stringValueTooLong,
        ].sorted { $0.rawValue < $1.rawValue })
    }

    @Test("more than 200 properties keep the first 200 keys in sorted order")
    func tooManyProperties() {
        var properties: [String: PropertyValue] = [:]
        for index in 0..<250 { properties[String(format: "k%03d", index)] = .int(Int64(index)) }
        var problems: [EventValidator.Problem] = []
        EventValidator.sanitize(&properties, problems: &problems)
        #expect(properties.count == 200 && properties["k199"] == .int(199) && properties["k200"] == nil)
        #expect(problems == [.tooManyProperties])
    }

    @Test("app_state travels as the top-level field; any other value is dropped with a problem")
    func appState() {
        var problems: [EventValidator.Problem] = []
        var active = Self.event(properties: ["app_state": .string("active"), "x": .int(1)])
        #expect(EventValidator.validate(&active, problems: &problems))
        #expect(active.appState == .active && active.properties["app_state"] == nil && problems.isEmpty)
        var bogus = Self.event(properties: ["app_state": .string("suspended")])
        #expect(EventValidator.validate(&bogus, problems: &problems))
        #expect(bogus.appState == nil && bogus.properties.isEmpty && problems == [.invalidAppState])
    }

    @Test("a clean dictionary is left as it is (the common case copies nothing)")
    func cleanUntouched() {
        var properties: [String: PropertyValue] = ["a": .int(1), "b": .string("x"), "c": .bool(false), "d": .double(2)]
        let before = properties
        var problems: [EventValidator.Problem] = []
        EventValidator.sanitize(&properties, problems: &problems)
        #expect(properties == before && problems.isEmpty)
    }

    // MARK: IdentityState

    @Test("device ids: empty or over 200 bytes clear the id (refused); nil clears it quietly; an explicit id wins per event")
    func deviceIDs() {
        var state = IdentityState()
        #expect(!state.setDeviceID("device-1") && state.deviceID == "device-1")
        #expect(state.setDeviceID("") && state.deviceID == nil, "refused, and cleared")
        _ = state.setDeviceID("device-2")
        #expect(state.setDeviceID(String(repeating: "d", count: 201)) && state.deviceID == nil)
        _ = state.setDeviceID("device-3")
        #expect(!state.setDeviceID(nil) && state.deviceID == nil)

        _ = state.setDeviceID("shared")
        var problems: [EventValidator.Problem] = []
        var inherited = Self.event()
        state.apply(to: &inherited, problems: &problems)
        #expect(inherited.deviceID == "shared")
        var explicit = Self.event(deviceIDSource: .explicit("request-7"))
        state.apply(to: &explicit, problems: &problems)
        #expect(explicit.deviceID == "request-7")
        var invalid = Self.event(deviceIDSource: .explicit(""))
        state.apply(to: &invalid, problems: &problems)
        #expect(invalid.deviceID == nil, "an invalid explicit id is dropped, not replaced by the shared one")
    }

    @Test("default properties replace, never merge; an event's own properties win a clash; the merge is held to 200 keys")
    func defaultProperties() {
        var state = IdentityState()
        var problems: [EventValidator.Problem] = []
        state.setDefaultProperties(["plan": "free", "app_version": "1.0"], problems: &problems)
        state.setDefaultProperties(["plan": "pro", "nan": .double(.nan)], problems: &problems)
        #expect(state.defaultProperties == ["plan": "pro"], "replaced, and repaired like an event's")
        #expect(problems == [.nonFiniteNumber])

        problems = []
        var own = Self.event(properties: ["plan": "trial", "total": 3])
        state.apply(to: &own, problems: &problems)
        #expect(own.properties == ["plan": "trial", "total": 3])
        var bare = Self.event()
        state.apply(to: &bare, problems: &problems)
        #expect(bare.properties == ["plan": "pro"])

        var many: [String: PropertyValue] = [:]
        for index in 0..<200 { many[String(format: "e%03d", index)] = .int(Int64(index)) }
        var full = Self.event(properties: many)
        state.apply(to: &full, problems: &problems)
        #expect(full.properties.count == 200 && problems == [.tooManyProperties])
    }

    // MARK: SealPolicy

    @Test("a batch seals at maxEvents, before an event that would take the body over 256 KiB, never before its first event")
    func sealPolicy() {
        let policy = SealPolicy(maxEvents: 3, maxAge: .seconds(10))
        #expect(!policy.isFull(openCount: 2) && policy.isFull(openCount: 3))
        #expect(!policy.mustSealBefore(adding: 300_000, openCount: 0, openPayloadBytes: 0), "an empty batch takes any event")
        #expect(!policy.mustSealBefore(adding: 1_000, openCount: 2, openPayloadBytes: 2_000))
        #expect(policy.mustSealBefore(adding: 200_000, openCount: 1, openPayloadBytes: 100_000))
        let exact = EventLimits.maxBodyBytes - SealedBatch.bodyBytes(payloadBytes: 0, count: 2)
        #expect(!policy.mustSealBefore(adding: exact - 10, openCount: 1, openPayloadBytes: 10), "exactly at the limit fits")
        #expect(policy.mustSealBefore(adding: exact - 9, openCount: 1, openPayloadBytes: 10), "one byte over does not")
    }

    @Test("maxEvents is held between 1 and the ingest's 1,000")
    func sealPolicyBounds() {
        #expect(SealPolicy(maxEvents: 0).maxEvents == 1)
        #expect(SealPolicy(maxEvents: 5_000).maxEvents == 1_000)
        #expect(SealPolicy().maxEvents == 50)
    }
}
