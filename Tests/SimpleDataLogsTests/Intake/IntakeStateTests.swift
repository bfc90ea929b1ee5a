import Foundation
import Testing
@testable import SimpleDataLogs

/// The intake's rules, tested synchronously on its state: no lock, no stream, no client.
@Suite("Intake: the state's rules", .stuckTestLimit)
struct IntakeStateTests {
    static let roomy = IntakeState.Backlog(events: 1_000, bytes: 1 << 30)

    /// A state that has been configured (its events drain), with these bounds.
    static func configured(_ backlog: IntakeState.Backlog = roomy, preConfigureLimit: Int = 10) -> IntakeState {
        var state = IntakeState(backlog: backlog, preConfigureLimit: preConfigureLimit)
        _ = state.markConfigured()
        return state
    }

    /// Offers one event named `name` of `cost` bytes.
    static func track(_ state: inout IntakeState, _ name: String = "e", cost: Int = 100, waits: Bool = false) -> (IntakeState.Acceptance, wakes: Bool) {
        state.accept(cost: cost, waitsWhenFull: waits) { ids in
            var event = Event(name: name, id: ids.next(milliseconds: 1), timestamp: 1, trackedAt: 1, properties: [:], origin: .live)
            event.memoryCost = cost
            return event
        }
    }

    static func eventNames(_ state: IntakeState) -> [String] {
        state.items.compactMap { if case .event(let event) = $0 { event.name } else { nil } }
    }

    @Test("a full backlog skips with one log line per episode; the episode ends only when the writer has caught up by half")
    func backlogHysteresis() {
        var state = Self.configured(IntakeState.Backlog(events: 4, bytes: 1 << 20))
        for _ in 0..<4 { #expect(Self.track(&state).0 == .accepted) }
        let limit = IntakeState.Backlog(events: 4, bytes: 1 << 20)
        #expect(Self.track(&state).0 == .skippedBacklog(firstInEpisode: true, limit: limit))
        #expect(Self.track(&state).0 == .skippedBacklog(firstInEpisode: false, limit: limit))
        #expect(state.skippedBacklog == 2 && state.tracked == 6 && state.inFlight == 4)

        #expect(state.release(1, bytes: 100).ended == nil, "3 of 4 in flight: not caught up by half")
        #expect(Self.track(&state).0 == .accepted, "room for one again")
        #expect(Self.track(&state).0 == .skippedBacklog(firstInEpisode: false, limit: limit), "the same episode")
        #expect(state.release(2, bytes: 200).ended.map { $0.skipped } == 3, "2 of 4: the episode ends, with its count")
        for _ in 0..<2 { _ = Self.track(&state) }
        #expect(Self.track(&state).0 == .skippedBacklog(firstInEpisode: true, limit: limit), "a new episode logs again")
    }

    @Test("the byte bound counts too, and an empty backlog always takes one event, however large")
    func byteBound() {
        var state = Self.configured(IntakeState.Backlog(events: 100, bytes: 1_000))
        #expect(Self.track(&state, cost: 5_000).0 == .accepted, "alone, it fits")
        #expect(Self.track(&state, cost: 10).0 != .accepted, "5,000 of 1,000 bytes in flight")
        _ = state.release(1, bytes: 5_000)
        for _ in 0..<10 { #expect(Self.track(&state, cost: 100).0 == .accepted) }
        #expect(Self.track(&state, cost: 1).0 != .accepted)
    }

    @Test("a caller that waits is told .full, and nothing is counted")
    func waitsWhenFull() {
        var state = Self.configured(IntakeState.Backlog(events: 1, bytes: 1 << 20))
        _ = Self.track(&state)
        #expect(Self.track(&state, waits: true).0 == .full)
        #expect(state.tracked == 1 && state.skippedBacklog == 0)
        #expect(!state.letsWaiterGo(cost: 100))
        _ = state.release(1, bytes: 100)
        #expect(state.letsWaiterGo(cost: 100))
    }

    @Test("before configure: no wake-up, the oldest held event dropped past the limit (one log line), all drainable after configure")
    func preConfigure() {
        var state = IntakeState(backlog: Self.roomy, preConfigureLimit: 3)
        for name in ["a", "b", "c"] { #expect(Self.track(&state, name) == (.accepted, false)) }
        #expect(Self.track(&state, "d").0 == .acceptedDroppingOldest(firstInEpisode: true))
        #expect(Self.track(&state, "e").0 == .acceptedDroppingOldest(firstInEpisode: false))
        #expect(Self.eventNames(state) == ["c", "d", "e"])
        #expect(state.droppedBeforeConfigure == 2 && state.inFlight == 3 && state.tracked == 5)
        let wakes = state.markConfigured()
        #expect(wakes, "held events wake the stage at configure")
        #expect(Self.track(&state, "f") == (.accepted, false), "the wake-up is already pending")
    }

    @Test("the opt-out: setEnabled(false) stops taking events at once and counts them; setEnabled(true) takes them again")
    func optOut() {
        var state = Self.configured()
        _ = state.enqueue(.setEnabled(false))
        #expect(!state.enabled && !state.accepting)
        #expect(Self.track(&state).0 == .ignoredWhileDisabled)
        #expect(state.ignoredWhileDisabled == 1 && state.tracked == 0)
        _ = state.enqueue(.setEnabled(true))
        #expect(Self.track(&state).0 == .accepted)
        // flushAndDisable stops taking events before its opt-out arrives; enabled says what the
        // app last chose.
        _ = state.stopAccepting()
        #expect(Self.track(&state).0 == .ignoredWhileDisabled)
        #expect(state.enabled)
    }

    @Test("identity calls coalesce only across other identity calls; setEnabled, barriers and events are never merged")
    func identityCoalescing() {
        var state = Self.configured()
        for index in 0..<1_000 { _ = state.enqueue(.setDeviceID("device-\(index)")) }
        _ = state.enqueue(.setDefaultProperties(["plan": "pro"]))
        _ = state.enqueue(.setDeviceID("last"))
        #expect(state.items.count == 2)
        if case .setDeviceID(let id)? = state.items.first { #expect(id == "last") } else { Issue.record("\(state.items)") }
        _ = Self.track(&state)
        _ = state.enqueue(.setDeviceID("after the event"))
        _ = state.enqueue(.setEnabled(false))
        _ = state.enqueue(.setEnabled(false))
        #expect(state.items.count == 6, "the event fences the merge; opt-outs stay apart")
    }

    @Test("userInput reports fold into one; foreground and background stop at the bound with one log line per episode")
    func activityBound() {
        var state = Self.configured()
        #expect(state.enqueueActivity(.userInput, at: 1).0 == .queued)
        #expect(state.enqueueActivity(.userInput, at: 2).0 == .coalesced)
        #expect(state.items.count == 1)
        for index in 1..<IntakeState.maxQueuedActivities { _ = state.enqueueActivity(index.isMultiple(of: 2) ? .foreground : .background, at: Int64(index)) }
        #expect(state.enqueueActivity(.background, at: 5_000).0 == .dropped(firstInEpisode: true))
        #expect(state.enqueueActivity(.foreground, at: 5_001).0 == .dropped(firstInEpisode: false))
        var buffer: [IntakeItem] = []
        state.drain(into: &buffer)
        #expect(buffer.count == IntakeState.maxQueuedActivities && state.items.isEmpty)
        #expect(state.enqueueActivity(.background, at: 6_000).0 == .queued, "the drain made room")
    }

    @Test("one wake-up per drain: the first append after a drain claims it")
    func wakeUps() {
        var state = Self.configured()
        #expect(Self.track(&state).wakes)
        #expect(!Self.track(&state).wakes)
        #expect(!state.enqueue(.setDeviceID("d")).wakes)
        var buffer: [IntakeItem] = []
        state.drain(into: &buffer)
        #expect(buffer.count == 3)
        #expect(state.enqueue(.setDeviceID("e")).wakes)
    }

    @Test("after shutdown: events are ignored and items refused, so the caller passes barriers itself")
    func shutDown() {
        var state = Self.configured()
        _ = state.shutDown()
        #expect(Self.track(&state).0 == .ignoredAfterShutdown(first: true))
        #expect(Self.track(&state).0 == .ignoredAfterShutdown(first: false))
        #expect(state.ignoredAfterShutdown == 2)
        #expect(state.enqueue(.setDeviceID("d")).refused)
        #expect(state.letsWaiterGo(cost: .max))
        #expect(state.tracked == 0 && state.items.isEmpty)
    }

    @Test("events the SDK makes itself count as tracked and in flight")
    func generated() {
        var state = Self.configured()
        state.admitGenerated(3)
        state.admitGenerated(0)
        #expect(state.tracked == 3 && state.inFlight == 3)
    }
}
