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

    /// An earlier run's log at `a0/intake-1.log` holding `count` events after the mark, as the
    /// writer would have left it, then changed by `damage`.
    static func plantLog(in directory: TemporaryDirectory, events count: Int, damage: (inout [UInt8]) -> Void = { _ in }) throws {
        let folder = directory.path + "/areas/a0"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/intake-1.log"
        var failure: String?
        let file = try #require(IntakeLogFile.create(at: path, slotCount: 256, firstSequence: 1, failure: &failure))
        var writer = IntakeLogWriter(file: file, slotCount: 256)
        var written = writer.start()
        for seq in 0..<count {
            written = writer.append(.event(.live(name: "planted", id: UUID(), timestamp: 1_700_000_000_000, properties: ["seq": .int(Int64(seq))]))) && written
        }
        #expect(written)
        writer.close()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        damage(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("a log torn in its middle, zeroed, of another version, or not a log at all: nothing crashes, what is whole is replayed, the file goes", arguments: ["torn", "zeroed", "version", "garbage", "empty"])
    func damagedLogs(kind: String) async throws {
        let directory = TemporaryDirectory()
        try Self.plantLog(in: directory, events: 10) { bytes in
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
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/areas/a0/intake-1.log"), "the earlier log is gone")
            #expect(client.client.hasIntakeLog, "this run has a log of its own")
            // Zeros or nothing are what a run killed while making its log leaves: no warning.
            let warned = client.log.lines(containing: "intake-1.log").contains { $0.level == .warning }
            #expect(warned == (kind == "version" || kind == "garbage"), "\(client.log.lines(containing: "intake-1.log").map(\.message))")
            #expect(client.client.counters.isBalanced, "\(client.client.counters)")
        }
    }

    @Test("an earlier log whole: its 10 events come back once, and the file goes")
    func wholeLog() async throws {
        let directory = TemporaryDirectory()
        try Self.plantLog(in: directory, events: 10)
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            let planted = try await client.flushedEvents().filter { $0.name == "planted" }
            #expect(try planted.map { try $0.requiredInt("seq") }.sorted() == Array(0..<10))
            #expect(client.client.counters.recovered == 10)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0")
            #expect(names.filter { $0.hasPrefix("intake-") } == ["intake-2.log"], "\(names)")
        }
    }

    @Test("a link where a log goes is never read nor written through; this run's log takes the next number")
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
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            client.client.track("live")
            _ = try await client.flushedEvents()
            #expect(client.client.hasIntakeLog)
            #expect(FileManager.default.fileExists(atPath: folder + "/intake-2.log"))
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "do not touch")
        }
    }

    @Test("a folder another user could plant files in (owned by nobody, or writable by all) is never mapped: no log is made, a planted one is neither read nor replayed, and calls still go on in memory")
    func distrustedFolder() async throws {
        for setUp in ["owned by nobody", "world-writable"] {
            let directory = TemporaryDirectory()
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
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/areas/a0").filter { $0.hasPrefix("intake-") }.isEmpty, "no half-made log left")
    }

    /// The events the log at `folder` holds after its released mark, by `seq`.
    static func unreleasedSeqs(inArea folder: String) throws -> [Int64] {
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("intake-") })
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        return try IntakeLogFormat.decode(bytes).get().unreleased.compactMap { record -> Int64? in
            guard case .event(let event)? = IntakeRecordCodec.decode(record.payload), case .int(let seq)? = event.properties["seq"] else { return nil }
            return seq
        }
    }

    @Test("a disk that fills during the run: what the journal cannot write stays unreleased in the log, and is released once it can")
    func fullDiskDuringTheRun() async throws {
        let fileSystem = FaultInjectingFileSystem()
        let directory = TemporaryDirectory()
        try await withTestClient(faults: fileSystem.injection, directory: directory, adjust: Self.withLog) { test throws in
            for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            let area = directory.path + "/areas/a0"
            #expect(try Self.unreleasedSeqs(inArea: area).isEmpty, "journaled: released")
            fileSystem.failWrites(with: ENOSPC)
            for seq in 5..<8 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 5)
            #expect(try Self.unreleasedSeqs(inArea: area) == [5, 6, 7], "only in memory and the log: kept")
            fileSystem.clearAll()
            test.client.track("e", properties: ["seq": 8])
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 9)
            #expect(try Self.unreleasedSeqs(inArea: area).isEmpty, "written at last: released")
        }
    }

    @Test("off by default, on in the server configuration; a client keeps a log only when asked")
    func optIn() async throws {
        #expect(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_x").keepsIntakeLog == false)
        #expect(SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_x").keepsIntakeLog == true)
        await withTestClient { plain in
            await plain.drain()
            #expect(!plain.client.hasIntakeLog)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: plain.directory.path + "/areas/a0")) ?? []
            #expect(!names.contains { $0.hasPrefix("intake-") })
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
            // Whichever areas they took (the names depend on which came first): two, one log each.
            let areas = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas")
                .filter { FileManager.default.fileExists(atPath: directory.path + "/areas/" + $0 + "/lock") }
            #expect(areas.count == 2, "\(areas)")
            for area in areas {
                let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/" + area)
                #expect(names.filter { $0.hasPrefix("intake-") }.count == 1, "\(area): \(names)")
            }
            await shutDown(second.client)
        }
    }

    @Test("the opt-out wipes the events from the log: none of their bytes stays readable in the file")
    func optOutWipes() async throws {
        let directory = TemporaryDirectory()
        try await withTestClient(directory: directory, adjust: Self.withLog) { client in
            for seq in 0..<50 { client.client.track("secret_purchase", properties: ["seq": .int(Int64(seq))]) }
            await client.drain()
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0")
            let log = try #require(names.first { $0.hasPrefix("intake-") })
            let path = directory.path + "/areas/a0/" + log
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
