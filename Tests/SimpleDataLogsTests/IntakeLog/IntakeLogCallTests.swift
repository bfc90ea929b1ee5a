import Foundation
import Testing
@testable import SimpleDataLogs

/// `track()`'s path with a log, on the intake's state (decision 0045): what it queues, what it
/// counts against the backlog, what it publishes and what it leaves unpublished.
@Suite("Intake log: track() publishes its call and queues where it is", .stuckTestLimit)
struct IntakeLogCallTests {
    static func call(_ state: inout IntakeState, _ seq: Int, eventID: UUID? = nil) -> IntakeState.Acceptance {
        state.acceptCall(
            name: "e", properties: ["seq": .int(Int64(seq))], timestamp: 1_700_000_000_000, trackedAt: 1_700_000_000_000, eventID: eventID,
            origin: .live, deviceIDSource: .inherited, scoped: nil
        ).0
    }

    static func logged(_ items: [IntakeItem]) -> [LoggedRecord] {
        items.compactMap { if case .logged(let record) = $0 { record } else { nil } }
    }

    @Test("configured with a log: each call is queued as its record, counted at 160 bytes plus the record's, and reads back as the event the call makes")
    func queuesRecords() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = IntakeStateTests.configured()
        state.installLog(try IntakeLogIntakeTests.writer(slotCount: 64, in: directory))
        let id = UUID()
        #expect(Self.call(&state, 0, eventID: id) == .accepted)
        #expect(Self.call(&state, 1) == .accepted)
        let records = Self.logged(state.items)
        #expect(records.count == 2 && state.items.count == 2, "no Event queued")
        #expect(state.inFlight == 2 && state.inFlightBytes == records.reduce(0) { $0 + 160 + $1.payloadCount })
        let mapping = try #require(state.logMapping)
        let first = try #require(mapping.takeEvent(records[0]))
        #expect(first.id == id && first.name == "e" && first.properties["seq"] == .int(0) && first.memoryCost == 160 + records[0].payloadCount)
        #expect(mapping.takeEvent(records[1])?.properties["seq"] == .int(1))
        #expect(mapping.takeEvent(LoggedRecord(sequence: records[1].sequence + 7, slot: records[1].slot, payloadCount: records[1].payloadCount)) == nil,
                "a record that is not there reads as nothing")
    }

    @Test("a backlog full by count or by bytes skips the call and publishes nothing; with room again the next call is published where the skipped one was written")
    func skipsUnpublished() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = IntakeStateTests.configured(IntakeState.Backlog(events: 2, bytes: 1 << 30))
        state.installLog(try IntakeLogIntakeTests.writer(slotCount: 64, in: directory))
        #expect(Self.call(&state, 0) == .accepted && Self.call(&state, 1) == .accepted)
        let held = state.log?.file.heldCount
        guard case .skippedBacklog(firstInEpisode: true, _) = Self.call(&state, 2) else { Issue.record("not skipped"); return }
        #expect(state.log?.file.heldCount == held, "nothing claimed in the ring")
        #expect(state.tracked == 3 && state.skippedBacklog == 1 && Self.logged(state.items).count == 2)
        // By bytes: one event of the next size does not fit.
        let other = TemporaryDirectory()
        defer { other.remove() }
        var bytes = IntakeStateTests.configured(IntakeState.Backlog(events: 100, bytes: 300))
        bytes.installLog(try IntakeLogIntakeTests.writer(slotCount: 64, in: other))
        #expect(Self.call(&bytes, 0) == .accepted, "an empty backlog always takes one")
        guard case .skippedBacklog = Self.call(&bytes, 1) else { Issue.record("not skipped by bytes"); return }
        #expect(Self.logged(bytes.items).count == 1)
    }

    @Test("before configure, or without a log, the call queues its event as before")
    func fallsBack() throws {
        var unconfigured = IntakeState(backlog: IntakeStateTests.roomy, preConfigureLimit: 10)
        #expect(Self.call(&unconfigured, 0) == .accepted)
        var plain = IntakeStateTests.configured()
        #expect(Self.call(&plain, 1) == .accepted)
        for items in [unconfigured.items, plain.items] {
            guard case .event(let event)? = items.first else { Issue.record("no event queued"); continue }
            #expect(event.memoryCost == Event.memoryCost(name: "e", properties: event.properties, deviceID: nil))
        }
    }
}
