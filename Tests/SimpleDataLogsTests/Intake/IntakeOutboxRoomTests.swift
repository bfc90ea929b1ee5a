import Foundation
import Testing
@testable import SimpleDataLogs

/// The waiting `track` waits for the outbox's room too (issue 23, item 10): the room rule and the
/// intake's use of it, synchronously.
@Suite("Intake: the outbox's room, for callers that wait", .stuckTestLimit)
struct IntakeOutboxRoomTests {
    @Test("the room is what the caps leave: events, files in batches of the policy's size, bytes; never below zero")
    func room() {
        let caps = OutboxCaps(maxEvents: 1_000, maxBytes: 100_000, maxFiles: 10)
        let some = OutboxRoom(caps: caps, stored: .init(events: 400, bytes: 40_000, files: 4), batchEvents: 50)
        #expect(some == OutboxRoom(events: 250, bytes: 60_000), "5 free files (one kept for the open batch) of 50 events")
        let roomyFiles = OutboxRoom(caps: caps, stored: .init(events: 400, bytes: 40_000, files: 4), batchEvents: 1_000)
        #expect(roomyFiles.events == 600, "the event cap binds")
        let over = OutboxRoom(caps: caps, stored: .init(events: 1_200, bytes: 200_000, files: 12), batchEvents: 50)
        #expect(over == OutboxRoom(events: 0, bytes: 0))
    }

    @Test("a caller that waits is told .full while the events in flight fill the outbox's room; plain track is not; the room coming back lets it go")
    func waitingCallerWaitsForTheOutbox() {
        var state = IntakeStateTests.configured()
        #expect(state.setOutboxRoom(OutboxRoom(events: 2, bytes: 1 << 20)).isEmpty)
        #expect(IntakeStateTests.track(&state, waits: true).0 == .accepted)
        #expect(IntakeStateTests.track(&state, waits: true).0 == .accepted)
        #expect(IntakeStateTests.track(&state, waits: true).0 == .full, "two in flight fill a room of two")
        #expect(state.tracked == 2, "nothing counted for the caller that waits")
        #expect(!state.letsWaiterGo(cost: 100))
        #expect(IntakeStateTests.track(&state).0 == .accepted, "plain track() never waits: the caps evict for it as before")

        // The journal writes them (the outbox's room shrinks first, then they leave the backlog).
        _ = state.setOutboxRoom(OutboxRoom(events: 0, bytes: 1 << 20))
        _ = state.release(3, bytes: 300)
        #expect(!state.letsWaiterGo(cost: 100), "the outbox is full: still waiting")
        // A delivery frees room.
        _ = state.setOutboxRoom(OutboxRoom(events: 50, bytes: 1 << 20))
        #expect(state.letsWaiterGo(cost: 100))
        #expect(IntakeStateTests.track(&state, waits: true).0 == .accepted)

        // The byte room counts too.
        _ = state.setOutboxRoom(OutboxRoom(events: 50, bytes: 150))
        #expect(IntakeStateTests.track(&state, cost: 100, waits: true).0 == .full, "100 in flight + 100 > 150 bytes")
    }
}
