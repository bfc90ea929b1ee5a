import Foundation
import Testing
@testable import SimpleDataLogs

/// The intake's side of the log, on its state: what it holds until the log is open, the replay
/// in front, a full log, a replay that does not fit.
@Suite("Intake log: the intake holds, logs and replays", .stuckTestLimit)
struct IntakeLogIntakeTests {
    /// A log of `slotCount` slots in a fresh temporary file, and its writer (first checkpoint written).
    static func writer(slotCount: Int, in directory: TemporaryDirectory) throws -> IntakeLogWriter {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        var failure: String?
        let file = try #require(IntakeLogFile.create(at: directory.path + "/intake-1.log", slotCount: slotCount, firstSequence: 1, failure: &failure))
        var writer = IntakeLogWriter(file: file, slotCount: slotCount)
        let started = writer.start()
        #expect(started)
        return writer
    }

    static func replay(_ names: [String]) -> IntakeLogReplay {
        let items: [IntakeItem] = [.restoreIdentity(deviceID: nil, defaults: [:])] + names.map(IntakeLogReplayTests.event)
        return IntakeLogReplay(IntakeLogReplayTests.contents(items, mark: 1))
    }

    static func names(_ items: [IntakeItem]) -> [String] { IntakeLogReplayTests.describe(items) }

    @Test("until the log settles nothing drains; then the replay comes first, and the log holds both in the order appended")
    func holdsThenReplaysInFront() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = IntakeState(backlog: IntakeStateTests.roomy, preConfigureLimit: 10)
        state.expectLog()
        _ = state.markConfigured()
        _ = IntakeStateTests.track(&state, "live-1")
        #expect(IntakeStateTests.track(&state, "live-2").wakes == false, "held: no wake-up")
        var buffer: [IntakeItem] = []
        #expect(state.drain(into: &buffer) == nil && buffer.isEmpty, "held while the log opens")
        let writer = try Self.writer(slotCount: 64, in: directory)
        state.installLog(writer)
        _ = IntakeStateTests.track(&state, "live-3")
        #expect(state.drain(into: &buffer) == nil && buffer.isEmpty, "still held until the replay is queued")
        let (inLog, through, wakes) = state.releaseHeld(replaying: [Self.replay(["dead-1", "dead-2"])])
        #expect(inLog == [true] && wakes)
        let drained = state.drain(into: &buffer)
        #expect(drained == through)
        #expect(Self.names(buffer) == ["begin", "restore(-, )", "dead-1", "dead-2", "end", "live-1", "live-2", "live-3"])
        #expect(state.inFlight == 5, "three tracked and two replayed")
        // The file: the checkpoint, the three live calls, then the replay in one piece.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/intake-1.log")))
        let records = try IntakeLogFormat.decode(bytes).get().records
        #expect(records.count == 1 + 3 + 5)
        #expect(records.first?.kind == IntakeRecordCodec.Kind.checkpoint.rawValue)
    }

    @Test("a full log never costs a call: it is taken unlogged, with one line per episode, and logging resumes once there is room")
    func fullLogTakesCallsUnlogged() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = IntakeStateTests.configured()
        state.installLog(try Self.writer(slotCount: 8, in: directory))
        _ = state.releaseHeld(replaying: [])
        var acceptances: [IntakeState.Acceptance] = []
        for index in 0..<12 { acceptances.append(IntakeStateTests.track(&state, "e\(index)").0) }
        #expect(acceptances.filter { $0 == .acceptedUnlogged }.count == 1, "one line for the episode")
        #expect(acceptances.allSatisfy { $0 == .accepted || $0 == .acceptedUnlogged })
        #expect(state.tracked == 12 && state.skippedBacklog == 0 && state.inFlight == 12)
        #expect(state.unlogged > 0)
        let logged = 12 - state.unlogged
        // The journal takes them: the log is released, and a call is logged again.
        state.releaseLog(through: UInt64(1 + logged))
        #expect(IntakeStateTests.track(&state, "after").0 == .accepted)
        #expect(state.log?.lastSequence ?? 0 > UInt64(1 + logged))
    }

    @Test("every replay is queued; one that does not fit in this run's log is said so (its file waits for the journal)")
    func replaysThatDoNotFit() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = IntakeStateTests.configured()
        state.installLog(try Self.writer(slotCount: 16, in: directory))
        let small = Self.replay(["a"])
        let large = Self.replay((0..<40).map { "b\($0)" })
        let (inLog, _, _) = state.releaseHeld(replaying: [small, large, small])
        #expect(inLog == [true, false, true], "a replay goes into the log whole or not at all")
        var buffer: [IntakeItem] = []
        state.drain(into: &buffer)
        #expect(buffer.count == 4 + 43 + 4)
        #expect(state.inFlight == 42 && state.replayed == 42)
    }
}
