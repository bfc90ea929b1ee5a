import Foundation
import Testing
@testable import SimpleDataLogs

/// An event at `minutes` past a fixed origin, for the pure session rules.
private func event(_ name: String = "e", atMinute minutes: Double, device: String? = nil, origin: Event.Origin = .live) -> Event {
    let time = 1_796_205_600_000 + Int64(minutes * 60_000)
    var event = Event(name: name, id: UUID(), timestamp: time, trackedAt: time, properties: [:], origin: origin)
    event.deviceID = device
    return event
}

/// Runs events through the rules; returns every event sent, in order, names and session ids.
private func run(_ rules: inout SessionRules, _ events: [Event]) -> [Event] {
    var sent: [Event] = []
    for var event in events {
        sent += rules.process(&event)
        sent.append(event)
    }
    return sent
}

@Suite("Sessions: the pure rules", .stuckTestLimit)
struct SessionRulesTests {
    @Test("the first event starts a session; every event carries its id")
    func firstEvent() {
        var rules = SessionRules(mode: .inactivityTimeout(minutes: 30))
        let sent = run(&rules, [event(atMinute: 0), event(atMinute: 1)])
        #expect(sent.map(\.name) == ["session_start", "e", "e"])
        #expect(Set(sent.map(\.sessionID)).count == 1 && sent[0].sessionID != nil)
        #expect(sent[0].timestamp == sent[1].timestamp)
    }

    @Test("inactivity: a gap just under or at the timeout keeps the session; just over ends it at the last activity and starts a new one before the event", arguments: [29.99, 30.0, 30.01])
    func inactivityGap(gap: Double) {
        var rules = SessionRules(mode: .inactivityTimeout(minutes: 30))
        let sent = run(&rules, [event(atMinute: 0), event(atMinute: 2), event(atMinute: 2 + gap)])
        if gap <= 30 {
            #expect(sent.map(\.name) == ["session_start", "e", "e", "e"])
        } else {
            #expect(sent.map(\.name) == ["session_start", "e", "e", "session_end", "session_start", "e"])
            let end = sent[3]
            #expect(end.timestamp == event(atMinute: 2).timestamp, "stamped at the last activity")
            #expect(end.properties["duration_s"] == .int(120))
            #expect(end.sessionID == sent[0].sessionID && sent[4].sessionID != sent[0].sessionID)
            #expect(sent[5].sessionID == sent[4].sessionID)
        }
    }

    @Test("other timeouts are honoured", arguments: [1, 5, 120])
    func otherTimeouts(minutes: Int) {
        var rules = SessionRules(mode: .inactivityTimeout(minutes: minutes))
        let under = run(&rules, [event(atMinute: 0), event(atMinute: Double(minutes) - 0.01)])
        #expect(under.filter { $0.name == "session_start" }.count == 1)
        let over = run(&rules, [event(atMinute: Double(minutes) * 2 + 0.02)])
        #expect(over.map(\.name) == ["session_end", "session_start", "e"])
    }

    @Test("back-dated events inside a session never move it and carry no session_id")
    func backdated() {
        var rules = SessionRules(mode: .inactivityTimeout(minutes: 30))
        var sent = run(&rules, [event(atMinute: 0)])
        sent += run(&rules, [event("old", atMinute: -500, origin: .backdated), event("old2", atMinute: 29, origin: .backdated)])
        #expect(sent.filter { $0.name.hasPrefix("old") }.allSatisfy { $0.sessionID == nil })
        // The back-dated event at minute 29 did not extend the session: minute 31 is a new one.
        let later = run(&rules, [event(atMinute: 31)])
        #expect(later.map(\.name) == ["session_end", "session_start", "e"])
    }

    @Test("a launch is activity: app_launched and app_crashed start and extend a session; session events do not")
    func launchesStartSessions() {
        var rules = SessionRules(mode: .inactivityTimeout(minutes: 30))
        let launch = run(&rules, [
            event("app_crashed", atMinute: 0, origin: .autocaptured), event("app_launched", atMinute: 0, origin: .autocaptured),
        ])
        #expect(launch.map(\.name) == ["session_start", "app_crashed", "app_launched"])
        #expect(launch[1].sessionID == launch[0].sessionID && launch[2].sessionID == launch[0].sessionID)
        var sent = run(&rules, [event("app_launched", atMinute: 20, origin: .autocaptured)])
        #expect(sent.map(\.name) == ["app_launched"] && sent[0].sessionID == launch[0].sessionID)
        sent = run(&rules, [event(atMinute: 45)])
        #expect(sent.map(\.name) == ["e"], "minute 20 was activity: the session lives on")
        var other = SessionRules(mode: .inactivityTimeout(minutes: 30))
        var end = event("session_end", atMinute: 0, origin: .autocaptured)
        #expect(other.process(&end).isEmpty && end.sessionID == nil, "session events never start one")
    }

    @Test("activation starts a session when none is open, for the latest event's device, without any track call")
    func activationStartsSession() {
        var rules = SessionRules(mode: .activation)
        let first = rules.appBecameActive(at: 0)
        #expect(first.map(\.name) == ["session_start"] && first[0].deviceID == nil, "before any event: no device")
        #expect(rules.appBecameActive(at: 60_000).isEmpty, "one is open: none started")
        var identified = SessionRules(mode: .activation)
        _ = run(&identified, [event("app_launched", atMinute: 0, device: "d1", origin: .autocaptured)])
        let base: Int64 = 1_796_205_600_000
        identified.appWentAway(at: base + 60_000)
        let back = identified.appBecameActive(at: base + 60_000 + 31 * 60_000)
        #expect(back.map(\.name) == ["session_end", "session_start"])
        #expect(back.last?.deviceID == "d1")
    }

    @Test("per-device sessions: two devices never share a session; the bound ends the least recently active")
    func perDevice() {
        var rules = SessionRules(mode: .inactivityTimeout(minutes: 30), maxSessions: 2)
        let sent = run(&rules, [
            event(atMinute: 0, device: "a"), event(atMinute: 1, device: "b"), event(atMinute: 2, device: "a"),
            event(atMinute: 3, device: "c"),
        ])
        let byDevice = Dictionary(grouping: sent.filter { $0.name == "e" }, by: { $0.deviceID ?? "" }).mapValues { Set($0.map(\.sessionID)) }
        #expect(byDevice["a"]?.count == 1 && byDevice["b"]?.count == 1 && byDevice["a"] != byDevice["b"])
        let ended = sent.filter { $0.name == "session_end" }
        #expect(ended.map(\.deviceID) == ["b"], "b was the least recently active when c came")
        #expect(rules.openSessions.compactMap(\.deviceID).sorted() == ["a", "c"])
    }

    @Test("activation: 30 minutes away ends the session at the next activation; less does not")
    func activation() {
        var rules = SessionRules(mode: .activation)
        _ = rules.appBecameActive(at: event(atMinute: 0).timestamp)
        var sent = run(&rules, [event(atMinute: 1)])
        rules.appWentAway(at: event(atMinute: 5).timestamp)
        #expect(rules.appBecameActive(at: event(atMinute: 34.99).timestamp).isEmpty, "29.99 minutes away")
        sent += run(&rules, [event(atMinute: 36)])
        #expect(Set(sent.compactMap(\.sessionID)).count == 1)
        rules.appWentAway(at: event(atMinute: 40).timestamp)
        let ended = rules.appBecameActive(at: event(atMinute: 70.01).timestamp)
        #expect(ended.map(\.name) == ["session_end", "session_start"], "the activation starts the next one")
        #expect(ended.first?.timestamp == event(atMinute: 40).timestamp, "ended when the app went away")
        let next = run(&rules, [event(atMinute: 71)])
        #expect(next.map(\.name) == ["e"] && next[0].sessionID == ended.last?.sessionID)
    }

    @Test("activation with no activity source (Linux) behaves as a 30-minute inactivity timeout")
    func activationWithoutSource() {
        var rules = SessionRules(mode: .activation)
        let sent = run(&rules, [event(atMinute: 0), event(atMinute: 30), event(atMinute: 60.01)])
        #expect(sent.map(\.name) == ["session_start", "e", "e", "session_end", "session_start", "e"])
    }
}

@Suite("Activity: the pure rules", .stuckTestLimit)
struct ActivityRulesTests {
    @Test("engaged_ms is the time in front since the previous event, across foreground and background")
    func engaged() {
        var rules = ActivityRules()
        rules.record(.foreground, at: 1_000)
        #expect(rules.stamp(at: 4_000) == (.active, 3_000))
        rules.record(.background, at: 6_000)
        #expect(rules.stamp(at: 9_000) == (.background, 2_000))
        rules.record(.foreground, at: 10_000)
        rules.record(.background, at: 10_500)
        rules.record(.foreground, at: 11_000)
        #expect(rules.stamp(at: 12_000) == (.active, 1_500))
        #expect(rules.stamp(at: 12_000) == (.active, 0))
    }

    @Test("input in the last 10 seconds counts as active even in the background; 10.001 s does not")
    func inputWindow() {
        var rules = ActivityRules()
        rules.record(.userInput, at: 0)
        #expect(rules.stamp(at: 10_000).state == .active)
        #expect(rules.stamp(at: 10_001).state == .background)
    }

    @Test("with nothing reported (a Linux server) every event is background with 0 ms engaged")
    func server() {
        var rules = ActivityRules()
        #expect(rules.stamp(at: 5_000) == (.background, 0))
    }
}
