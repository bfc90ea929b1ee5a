import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// The intake log against a folder that holds what it should not: damaged or foreign logs, a
/// link where a log goes, two clients on one folder, and the opt-out's wipe.
@Suite("Intake log: damaged, foreign and linked files; two clients; the opt-out's wipe", .stuckTestLimit)
struct IntakeLogHostileTests {
    /// The intake log on (it is off by default).
    static let withLog: @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { $0.keepsIntakeLog = true }

    /// Where a planted log goes: in the root under this version's name (an ended run's, untagged:
    /// anyone's), or where an earlier version kept it (`areas/a0/intake-1.log`).
    enum Place: String, CaseIterable, Sendable {
        case root, earlierVersion
    }

    /// The untagged name the root's planted log gets.
    static let plantedName = "intake-0192d3a0-0000-7000-8000-000000000001.log"

    /// The planted log's path in `directory`.
    static func plantedPath(in directory: TemporaryDirectory, _ place: Place) -> String {
        place == .root ? directory.path + "/" + plantedName : directory.path + "/areas/a0/intake-1.log"
    }

    /// The logs of this version's naming in the root of `directory`.
    static func rootLogs(in directory: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { IntakeLogFiles.parts(ofName: $0) != nil }
    }

    /// An ended run's log holding `count` events after the mark, as the writer would have left
    /// it, then changed by `damage`.
    static func plantLog(
        in directory: TemporaryDirectory, _ place: Place = .root, named name: String? = nil, events count: Int, firstSeq: Int = 0,
        damage: (inout [UInt8]) -> Void = { _ in }
    ) throws {
        let path = name.map { directory.path + "/" + $0 } ?? plantedPath(in: directory, place)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var failure: String?
        let file = try #require(IntakeLogFile.create(at: path, slotCount: 256, firstSequence: 1, failure: &failure))
        var writer = IntakeLogWriter(file: file, slotCount: 256)
        var written = writer.start()
        for seq in firstSeq..<(firstSeq + count) {
            written = writer.append(.event(.live(name: "planted", id: UUID(), timestamp: 1_700_000_000_000, properties: ["seq": .int(Int64(seq))]))) && written
        }
        #expect(written)
        writer.close()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        damage(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("a log torn in its middle, zeroed, of another version, or not a log at all: nothing crashes, what is whole is replayed, the file goes", arguments: ["torn", "zeroed", "version", "garbage", "empty"], Place.allCases)
    func damagedLogs(kind: String, place: Place) async throws {
        let directory = TemporaryDirectory()
        let plantedAt = Self.plantedPath(in: directory, place)
        let plantedName = (plantedAt as NSString).lastPathComponent
        try Self.plantLog(in: directory, place, events: 10) { bytes in
            switch kind {
            case "torn": bytes = Array(bytes.prefix(IntakeLogFormat.headerSize + 6 * IntakeLogFormat.slotSize + 40))
            case "zeroed": bytes = [UInt8](repeating: 0, count: bytes.count)
            case "version": bytes[8] = 99
            case "garbage": bytes = (0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }
            default: bytes = []
            }
        }
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            client.client.track("live")
            let events = try await client.flushedEvents()
            let planted = events.filter { $0.name == "planted" }
            #expect(events.contains { $0.name == "live" }, "the client runs")
            if kind == "torn" {
                // Cut in the seventh slot: the checkpoint and the five whole events before it stay.
                #expect(try planted.map { try $0.requiredInt("seq") }.sorted() == [0, 1, 2, 3, 4])
            } else {
                #expect(planted.isEmpty)
            }
            #expect(Set(planted.map(\.eventID)).count == planted.count)
            #expect(!FileManager.default.fileExists(atPath: plantedAt), "the earlier log is gone")
            #expect(client.client.hasIntakeLog, "this run has a log of its own")
            // Zeros or nothing are what a run killed while making its log leaves: no warning.
            let warned = client.log.lines(containing: plantedName).contains { $0.level == .warning }
            #expect(warned == (kind == "version" || kind == "garbage"), "\(client.log.lines(containing: plantedName).map(\.message))")
            #expect(client.client.counters.isBalanced, "\(client.client.counters)")
        }
    }

    @Test("an ended run's log whole, in the root or where an earlier version kept it: its 10 events come back once, and the file goes; this run's log is in the root", arguments: Place.allCases)
    func wholeLog(place: Place) async throws {
        let directory = TemporaryDirectory()
        try Self.plantLog(in: directory, place, events: 10)
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            let planted = try await client.flushedEvents().filter { $0.name == "planted" }
            #expect(try planted.map { try $0.requiredInt("seq") }.sorted() == Array(0..<10))
            #expect(client.client.counters.recovered == 10)
            #expect(!FileManager.default.fileExists(atPath: Self.plantedPath(in: directory, place)))
            let logs = Self.rootLogs(in: directory)
            #expect(logs.count == 1 && logs != [Self.plantedName], "this run's own: \(logs)")
            let inArea = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0")
            #expect(!inArea.contains { $0.hasPrefix("intake-") }, "\(inArea)")
        }
    }

    @Test("twenty ended runs' logs: one launch replays every one, each event once, oldest run first, and deletes them all")
    func manyEndedLogs() async throws {
        let directory = TemporaryDirectory()
        for run in 0..<20 {
            // Time-ordered ids, as runs make them: run 0 is the oldest.
            let name = "intake-0192d3a0-\(String(format: "%04x", run))-7000-8000-000000000001.log"
            try Self.plantLog(in: directory, named: name, events: 3, firstSeq: run * 3)
        }
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            let planted = try await client.flushedEvents().filter { $0.name == "planted" }
            #expect(try planted.map { try $0.requiredInt("seq") } == Array(0..<60), "all 60, in the runs' order")
            #expect(client.client.counters.recovered == 60)
            #expect(Self.rootLogs(in: directory).count == 1, "only this run's log is left: \(Self.rootLogs(in: directory))")
        }
    }

    @Test("a kill after the sealer renamed a journal into a batch file but before the log was released: the replayed copies of that batch's events are dropped, each event is on disk once")
    func replayedCopiesOfASealedBatch() async throws {
        let directory = TemporaryDirectory()
        let ids = (0..<3).map { _ in UUID() }
        // The ended run's log: the three events after its mark. In a scope of its own: the
        // file's lock goes with its last reference.
        do {
            try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
            var failure: String?
            let file = try #require(IntakeLogFile.create(at: Self.plantedPath(in: directory, .root), slotCount: 256, firstSequence: 1, failure: &failure))
            var writer = IntakeLogWriter(file: file, slotCount: 256)
            var written = writer.start()
            for (seq, id) in ids.enumerated() {
                written = writer.append(.event(.live(name: "planted", id: id, timestamp: 1_700_000_000_000, properties: ["seq": .int(Int64(seq))]))) && written
            }
            #expect(written)
            writer.close()
        }
        // The same three, sealed into a batch file by the sealer before the kill.
        let payloads = ids.enumerated().map { seq, id in
            Array(#"{"event":"planted","event_id":"\#(EventEncoder.lowercaseString(id))","ts":1700000000000,"props":{"seq":\#(seq)}}"#.utf8)
        }
        let batch = SealedBatch(id: UUID(), sequence: 1, path: "r", payloads: payloads)
        let batches = OutboxLayout(root: directory.path).area("a0").batchesFolder
        try FileManager.default.createDirectory(atPath: batches, withIntermediateDirectories: true)
        try Data(BatchFile.encode(batch)).write(to: URL(fileURLWithPath: batches + "/" + batch.fileName))

        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            let planted = try await client.flushedEvents().filter { $0.name == "planted" }
            #expect(try planted.map { try $0.requiredInt("seq") }.sorted() == [0, 1, 2], "each once, not the batch's and the replay's")
            let counters = client.client.counters
            #expect(counters.recovered == 3 && counters.isBalanced, "\(counters)")
            #expect(client.client.replayedFromIntakeLog == 3, "the log was replayed")
        }
    }

    @Test("a log another process holds (its lock is taken) is neither read nor deleted; another destination's log is left alone; both are there after the run")
    func liveAndForeignLogs() async throws {
        let directory = TemporaryDirectory()
        try Self.plantLog(in: directory, events: 3)
        // Another destination's log: the tag of another key at the same endpoint.
        let foreignTag = AreaOwner(ingestKey: "sdl_pub_someone_else", endpoint: "http://127.0.0.1:1/v1/events").tag
        let foreign = directory.path + "/intake-0192d3a0-0000-7000-8000-000000000002-\(foreignTag).log"
        try FileManager.default.copyItem(atPath: Self.plantedPath(in: directory, .root), toPath: foreign)
        // A live run's: locked through a descriptor of its own, as its process would hold it.
        let descriptor = open(Self.plantedPath(in: directory, .root), O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        // Waited for, not tried: a child another test forks while the planting writer held the
        // file keeps that writer's lock until the child's exec closes it (O_CLOEXEC), and under
        // load that took long enough for a non-blocking try to fail.
        let locked = try await onOwnThread { flock(descriptor, LOCK_EX) == 0 }
        #expect(locked)
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            client.client.track("live")
            let events = try await client.flushedEvents()
            #expect(!events.contains { $0.name == "planted" }, "neither is replayed")
            #expect(client.client.replayedFromIntakeLog == 0)
            #expect(FileManager.default.fileExists(atPath: Self.plantedPath(in: directory, .root)))
            #expect(FileManager.default.fileExists(atPath: foreign))
            #expect(Self.rootLogs(in: directory).count == 3, "the two planted ones and this run's")
        }
    }

    @Test("a link where a log goes is never read nor written through; this run's log is a file of its own")
    func linkedLog() async throws {
        let directory = TemporaryDirectory()
        let outside = TemporaryDirectory()
        defer { outside.remove() }
        try FileManager.default.createDirectory(atPath: outside.path, withIntermediateDirectories: true)
        let target = outside.path + "/precious"
        try Data("do not touch".utf8).write(to: URL(fileURLWithPath: target))
        let folder = directory.path + "/areas/a0"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/intake-1.log", withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/" + Self.plantedName, withDestinationPath: target)
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            client.client.track("live")
            _ = try await client.flushedEvents()
            #expect(client.client.hasIntakeLog)
            #expect(client.client.replayedFromIntakeLog == 0)
            let own = Self.rootLogs(in: directory).filter { $0 != Self.plantedName }
            #expect(own.count == 1 && FileManager.default.fileExists(atPath: directory.path + "/" + own[0]), "\(own)")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "do not touch")
        }
    }

    @Test("a folder another user could plant files in (owned by nobody, or writable by all) is never mapped: no log is made, a planted one is neither read nor replayed, and calls still go on in memory")
    func distrustedFolder() async throws {
        for setUp in ["owned by nobody", "world-writable"] {
            let directory = TemporaryDirectory()
            try Self.plantLog(in: directory, .earlierVersion, events: 10)
            try Self.plantLog(in: directory, events: 10)
            if setUp == "owned by nobody" {
                #expect(chown(directory.path, 65_534, 65_534) == 0, "the tests run as root")
            } else {
                #expect(chmod(directory.path, 0o777) == 0)
            }
            await withTestClient(directory: directory, adjust: Self.withLog) { client in
                client.client.track("live")
                await client.drain()
                #expect(!client.client.hasIntakeLog, "\(setUp)")
                #expect(client.client.replayedFromIntakeLog == 0, "\(setUp): the planted log is not replayed")
                #expect(client.client.counters.tracked == 1 && client.client.counters.pendingInMemory == 1, "\(setUp): \(client.client.counters)")
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0")) ?? []
                #expect(names == ["intake-1.log"], "\(setUp): only the planted file, untouched: \(names)")
                #expect(Self.rootLogs(in: directory) == [Self.plantedName], "\(setUp): no log made, the planted one untouched")
            }
        }
    }

    @Test("no room on disk for the log at configure: one line says so, the client runs as without it, and its events are journaled", .tags(.processes))
    func noRoomForTheLog() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        let output = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["log-no-room", path])
            return child.readToEnd()
        }
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("log false"), "\(lines)")
        #expect(lines.contains("journaled 10"), "\(lines)")
        let logLines = lines.filter { $0.hasPrefix("sdl ") && $0.contains("intake log") }
        #expect(logLines.count == 1, "one line: \(logLines)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasPrefix("intake-") }.isEmpty, "no half-made log left")
    }

    /// The events this run's log in `directory` holds after its released mark, by `seq`.
    static func unreleasedSeqs(in directory: TemporaryDirectory) throws -> [Int64] {
        let name = try #require(rootLogs(in: directory).first)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name)))
        return try IntakeLogFormat.decode(bytes).get().unreleased.compactMap { record -> Int64? in
            guard case .event(let event)? = IntakeRecordCodec.decode(record.payload), case .int(let seq)? = event.properties["seq"] else { return nil }
            return seq
        }
    }

    @Test("a clean shutdown deletes this run's log once the journal holds all of it; when the journal could not write some events, the log stays with them for the next launch")
    func shutdownLeavesNoLog() async throws {
        let directory = TemporaryDirectory()
        try await withTestClient(directory: directory) { test throws in
            for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(Self.rootLogs(in: directory).count == 1)
            await shutDown(test.client)
            #expect(Self.rootLogs(in: directory).isEmpty, "no 4 MiB file left behind")
            #expect(try JournalReader.events(inOutbox: directory.path).count == 5, "the events are in the journal")
        }
        // A run that tracks nothing, and never flushes: its log goes too.
        let idle = TemporaryDirectory()
        await withTestClient(directory: idle) { test in
            // No flush: a barrier would release the checkpoint with it.
            #expect(Self.rootLogs(in: idle).count == 1)
            await shutDown(test.client)
            #expect(Self.rootLogs(in: idle).isEmpty, "a run that tracked nothing leaves no log")
        }
        let fileSystem = FaultInjectingFileSystem()
        let full = TemporaryDirectory()
        try await withTestClient(faults: fileSystem.injection, directory: full) { test throws in
            for seq in 0..<3 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            fileSystem.failWrites(with: ENOSPC)
            for seq in 3..<6 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(try Self.unreleasedSeqs(in: full) == [3, 4, 5])
            await shutDown(test.client, timeLimit: .milliseconds(100))
            #expect(try Self.unreleasedSeqs(in: full) == [3, 4, 5], "kept for the next launch")
        }
    }

    @Test("a disk that fills during the run: what the journal cannot write stays unreleased in the log, and is released once it can")
    func fullDiskDuringTheRun() async throws {
        let fileSystem = FaultInjectingFileSystem()
        let directory = TemporaryDirectory()
        try await withTestClient(faults: fileSystem.injection, directory: directory, adjust: Self.withLog) { test throws in
            for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(try Self.unreleasedSeqs(in: directory).isEmpty, "journaled: released")
            fileSystem.failWrites(with: ENOSPC)
            for seq in 5..<8 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 5)
            #expect(try Self.unreleasedSeqs(in: directory) == [5, 6, 7], "only in memory and the log: kept")
            fileSystem.clearAll()
            test.client.track("e", properties: ["seq": 8])
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 9)
            #expect(try Self.unreleasedSeqs(in: directory).isEmpty, "written at last: released")
        }
    }

    @Test("on by default and in the server configuration; a client turned off keeps none")
    func onByDefault() async throws {
        #expect(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_x").keepsIntakeLog == true)
        #expect(SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_x").keepsIntakeLog == true)
        await withTestClient(adjust: { $0.keepsIntakeLog = false }) { off in
            await off.drain()
            #expect(!off.client.hasIntakeLog)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: off.directory.path + "/areas/a0")) ?? []
            #expect(!names.contains { $0.hasPrefix("intake-") })
            #expect(Self.rootLogs(in: off.directory).isEmpty)
        }
        await withTestClient { plain in
            await plain.drain()
            #expect(plain.client.hasIntakeLog)
            #expect(Self.rootLogs(in: plain.directory).count == 1)
        }
        await withTestClient(adjust: { $0 = .server(ingestKey: $0.ingestKey, endpoint: $0.endpoint, storageDirectory: $0.storageDirectory) }) { server in
            await server.drain()
            #expect(server.client.hasIntakeLog)
        }
    }

    @Test("two clients on one folder: each has its own area and its own log")
    func twoClients() async throws {
        let directory = TemporaryDirectory()
        try await withTestClient(directory: directory, adjust: Self.withLog) { first in
            let second = TestClient(directory: directory, adjust: Self.withLog)
            first.client.track("one")
            second.client.track("two")
            await first.drain()
            await second.drain()
            #expect(first.client.hasIntakeLog && second.client.hasIntakeLog)
            // Two areas, and two logs in the root, neither taken by the other's launch.
            let areas = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas")
                .filter { FileManager.default.fileExists(atPath: directory.path + "/areas/" + $0 + "/lock") }
            #expect(areas.count == 2, "\(areas)")
            #expect(Self.rootLogs(in: directory).count == 2, "\(Self.rootLogs(in: directory))")
            #expect(first.client.replayedFromIntakeLog == 0 && second.client.replayedFromIntakeLog == 0)
            await shutDown(second.client)
        }
    }

    @Test("the opt-out wipes the events from the log: none of their bytes stays readable in the file")
    func optOutWipes() async throws {
        let directory = TemporaryDirectory()
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            for seq in 0..<50 { client.client.track("secret_purchase", properties: ["seq": .int(Int64(seq))]) }
            await client.drain()
            let log = try #require(Self.rootLogs(in: directory).first)
            let path = directory.path + "/" + log
            let needle = Data("secret_purchase".utf8)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: needle) != nil, "the log held them")
            client.client.setEnabled(false)
            await client.drain()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: needle) == nil, "wiped by the opt-out")
            // Collection on again: the log still takes calls, in the same file.
            client.client.setEnabled(true)
            client.client.track("after_opt_in")
            await client.drain()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data("after_opt_in".utf8)) != nil)
        }
    }
}
