import Foundation
import Testing
@testable import SimpleDataLogs

/// The outbox's group commit, watermark and crash-record rules, tested synchronously on the state
/// value: no actor, no thread, no file.
@Suite("Outbox: the state value's rules", .stuckTestLimit)
struct OutboxStateTests {
    static func record(_ eventID: UUID) -> CrashRecordFile {
        CrashRecordFile(path: "/nonexistent/crash-record", descriptor: -1, eventID: eventID, fileSystem: PosixFileSystem())
    }

    @Test("group commit: every event appended since the last commit is written once, moves the watermark to the newest, and leaves the backlog together")
    func groupCommit() {
        var state = OutboxState()
        let ids = (0..<3).map { _ in UUID() }
        for id in ids { state.appended(id: id, cost: 100, isCrash: false) }
        #expect(state.commit(durable: true) == [
            .advanceWatermark(by: 3, latest: ids[2]), .countWritten(3), .releaseBacklog(events: 3, bytes: 300),
        ])
        #expect(state.commit(durable: true).isEmpty, "nothing new: a commit with no write does nothing")
    }

    @Test("watermark: events written while the journal is not whole are counted and released, never under the watermark until a rewrite puts them on disk")
    func watermarkWaitsForWholeJournal() {
        var state = OutboxState()
        let (first, second, third) = (UUID(), UUID(), UUID())
        state.appended(id: first, cost: 10, isCrash: false)
        state.appended(id: second, cost: 10, isCrash: false)
        #expect(state.commit(durable: false) == [.countWritten(2), .releaseBacklog(events: 2, bytes: 20)])
        #expect(state.undurableOpenEvents == 2 && state.openEventsInMemory == 2)
        // The next whole write takes the held ones under the watermark with the new one.
        state.appended(id: third, cost: 10, isCrash: false)
        #expect(state.commit(durable: true) == [
            .advanceWatermark(by: 3, latest: third), .countWritten(1), .releaseBacklog(events: 1, bytes: 10),
        ])
        #expect(state.openEventsInMemory == 0)
    }

    @Test("watermark: a rewrite with no new event (a folder taken late) recounts and moves the watermark for the held events only")
    func rewriteWithoutNewEvents() {
        var state = OutboxState()
        state.appended(id: UUID(), cost: 1, isCrash: false)
        _ = state.commit(durable: false)
        #expect(state.commit(durable: false).isEmpty, "still not whole: nothing moves")
        #expect(state.commit(durable: true) == [.recount, .advanceWatermark(by: 1, latest: nil)])
    }

    @Test("watermark: an open journal whose area was deleted holds its committed events in memory; sealing the batch hands the undurable ones to the batch")
    func lostAreaAndSeal() {
        var state = OutboxState()
        for _ in 0..<4 { state.appended(id: UUID(), cost: 1, isCrash: false) }
        _ = state.commit(durable: true)
        state.appended(id: UUID(), cost: 1, isCrash: false)
        state.lostOpenJournal(openEvents: 5)
        #expect(state.openEventsOffDisk == 4, "the committed four; the fifth is still uncommitted")
        #expect(state.commit(durable: false) == [.countWritten(1), .releaseBacklog(events: 1, bytes: 1)])
        #expect(state.openEventsInMemory == 5)
        #expect(state.sealedOpenBatch() == 1, "the batch file written for them moves the watermark by the undurable one")
        #expect(state.openEventsInMemory == 0)
    }

    @Test("crash records: kept until their event is on disk, left for the next launch when their event never came, deleted when collection is off")
    func crashRecords() {
        var state = OutboxState()
        let crash = UUID()
        state.appended(id: crash, cost: 1, isCrash: true)
        #expect(state.crashRecordHandedOver(Self.record(crash), collecting: true) == .keepUntilOnDisk)
        #expect(state.crashRecordHandedOver(Self.record(UUID()), collecting: true) == .leaveForNextLaunch)
        #expect(state.crashRecordHandedOver(Self.record(crash), collecting: false) == .discard)
        #expect(state.takeCrashRecordsOnDisk(everythingOnDisk: false).isEmpty, "its event is not on disk yet")
        #expect(state.takeCrashRecordsOnDisk(everythingOnDisk: true).map(\.eventID) == [crash])
        #expect(state.takeCrashRecordsOnDisk(everythingOnDisk: true).isEmpty, "deleted once")
        #expect(state.crashRecordHandedOver(Self.record(crash), collecting: true) == .leaveForNextLaunch, "matched once")
    }

    @Test("crash records: close gives up every record still waiting and forgets the appended ids")
    func crashRecordsGivenUp() {
        var state = OutboxState()
        let crash = UUID()
        state.appended(id: crash, cost: 1, isCrash: true)
        _ = state.crashRecordHandedOver(Self.record(crash), collecting: true)
        state.appended(id: UUID(), cost: 1, isCrash: true)
        #expect(state.giveUpCrashRecords().map(\.eventID) == [crash])
        #expect(state.appendedCrashEventIDs.isEmpty && state.crashRecordsAwaitingDisk.isEmpty)
    }

    static func inFlight(_ sequence: Int, events: Int, payloadBytes: Int) -> SealInFlight {
        let payload = [UInt8](repeating: 0x20, count: payloadBytes / events)
        return SealInFlight(
            batch: SealedBatch(id: UUID(), sequence: sequence, path: "r", payloads: Array(repeating: payload, count: events)),
            payloadBytes: payloadBytes
        )
    }

    @Test("caps: the open journal and the journals with the sealer count toward the caps until their outcomes come back, and only once")
    func sealsInFlightCount() {
        var state = OutboxState()
        let empty = OpenBatch()
        #expect(state.unevictableUsage(open: empty) == OutboxCaps.Usage())
        let waits = [state.handedToSealer(Self.inFlight(1, events: 50, payloadBytes: 5_000)),
                     state.handedToSealer(Self.inFlight(2, events: 10, payloadBytes: 1_000))]
        #expect(waits == [false, false])
        #expect(state.unevictableUsage(open: empty) == OutboxCaps.Usage(
            events: 60, bytes: 6_000 + 60 * JournalRecord.headerSize, files: 2
        ))
        let settled = state.sealsSettled(by: [
            SealOutcome(sequence: 2, failure: nil), SealOutcome(sequence: 9, failure: nil), SealOutcome(sequence: 1, failure: FileSystemError(code: 5, operation: "fdatasync", path: "journal-1.log")),
        ])
        #expect(settled.map(\.seal.batch.sequence) == [2, 1], "in the outcomes' order; the unknown one ignored")
        #expect(settled.map { $0.failure == nil } == [true, false])
        #expect(state.unevictableUsage(open: empty) == OutboxCaps.Usage() && state.bytesBeingSealed == 0)
        let again = state.sealsSettled(by: [SealOutcome(sequence: 1, failure: nil)])
        #expect(again.isEmpty, "settled once")
    }

    @Test("back-pressure: the journal waits for the sealer once more than 4 MiB of events are with it, not before")
    func backPressure() {
        var state = OutboxState()
        let bytes = OutboxState.maxBytesBeingSealed / 4
        for sequence in 0..<4 {
            let waits = state.handedToSealer(Self.inFlight(sequence, events: 1, payloadBytes: bytes))
            #expect(!waits, "at most the limit")
        }
        let past = state.handedToSealer(Self.inFlight(4, events: 1, payloadBytes: 1))
        #expect(past, "past it")
        _ = state.sealsSettled(by: [SealOutcome(sequence: 0, failure: nil)])
        let afterRoom = state.handedToSealer(Self.inFlight(5, events: 1, payloadBytes: 1))
        #expect(!afterRoom, "an outcome made room")
    }

    @Test("counters: the held-in-memory count moves by the difference since it was last counted")
    func recount() {
        var state = OutboxState()
        let moves = [5, 5, 2].map { state.recount(heldInMemory: $0) }
        #expect(moves == [5, 0, -3])
    }

    @Test("disk trouble: one error line per episode, one recovery line at its end, none while a folder is being taken late")
    func diskTroubleEpisodes() {
        var state = OutboxState()
        let lines = [state.diskTroubleBegins(), state.diskTroubleBegins(), state.diskTroubleEnds(), state.diskTroubleEnds()]
        #expect(lines == [true, false, true, false])
        _ = state.diskTroubleBegins()
        state.isTakingStorage = true
        let whileTaking = state.diskTroubleEnds()
        state.isTakingStorage = false
        let after = state.diskTroubleEnds()
        #expect(!whileTaking && after, "the late folder logs its own line; the episode ends at the next success")
    }

    @Test("appending: the first event starts the seal timer, the last one the policy allows seals at once, and a body past the limit seals first or is dropped")
    func appendRules() {
        var state = OutboxState()
        var policy = SealPolicy(maxEvents: 3)
        policy.maxBodyBytes = 1_000
        let small = [UInt8](repeating: 0x61, count: 100)
        #expect(state.admission(payloadBytes: small.count, policy: policy) == .joins)
        let steps = (0..<3).map { _ in state.append(small, id: UUID(), cost: 1, isCrash: false, policy: policy) }
        #expect(steps.map(\.startsSealTimer) == [true, false, false])
        #expect(steps.map(\.sealsAfter) == [false, false, true])
        #expect(state.uncommittedEvents == 3)
        #expect(state.admission(payloadBytes: 10_000, policy: policy) == .tooLarge, "no batch can hold it")
        var partly = OutboxState()
        _ = partly.append([UInt8](repeating: 0x61, count: 600), id: UUID(), cost: 1, isCrash: false, policy: policy)
        #expect(partly.admission(payloadBytes: 600, policy: policy) == .sealFirst, "together they pass the body limit")
    }
}
