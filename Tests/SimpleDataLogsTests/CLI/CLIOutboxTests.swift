#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import SimpleDataLogs
@testable import SDLCommands

@Suite("CLI: sdl outbox", .stuckTestLimit)
struct CLIOutboxTests {
    @Test("a healthy outbox: files, events per file, oldest and newest, a free lock of a dead owner; nothing changed")
    func healthy() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let area = fixture.area(ownerPID: deadPID)
        fixture.batch(in: area, sequence: 1, timestamps: [1_700_000_003_000, 1_700_000_001_000, 1_700_000_002_000])
        _ = FileManager.default.createFile(atPath: area + "/journal-000000000002.log", contents: Data(OutboxFixture.journal([1_700_000_004_000, 1_700_000_005_000])))
        let before = fixture.snapshot()

        let report = OutboxInspector.inspect(root: fixture.root)
        let a0 = try #require(report.areas.first)
        #expect(report.areas.count == 1 && a0.name == "a0")
        #expect(a0.batches.count == 1 && a0.batches[0].events == 3, "the header record is not an event")
        #expect(a0.batches[0].oldestTimestamp == 1_700_000_001_000 && a0.batches[0].newestTimestamp == 1_700_000_003_000)
        #expect(a0.journals.count == 1 && a0.journals[0].events == 2)
        #expect(report.pendingEvents == 5 && report.damagedRecords == 0)
        #expect(a0.lock.ownerPID == deadPID && a0.lock.ownerAlive == false && a0.lock.state == .free)

        let (status, console) = await sdl("outbox", fixture.root)
        #expect(status == 0, "\(console.errors)")
        #expect(console.output.contains("batches/: 1 files, 3 events"))
        #expect(console.output.contains("2023-11-14 22:13:21.000Z … 2023-11-14 22:13:23.000Z"))
        #expect(console.output.contains("not running"))
        #expect(fixture.snapshot() == before, "inspecting changes nothing")
    }

    @Test("a torn journal: the intact records counted, the torn tail reported with its offset")
    func torn() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let area = fixture.area(ownerPID: deadPID)
        let whole = OutboxFixture.journal([1, 2, 3])
        let intact = OutboxFixture.journal([1, 2]).count
        _ = FileManager.default.createFile(atPath: area + "/journal-000000000001.log", contents: Data(whole.prefix(whole.count - 7)))
        let journal = try #require(OutboxInspector.inspect(root: fixture.root).areas.first?.journals.first)
        #expect(journal.events == 2)
        #expect(journal.damage == [OutboxDamage(offset: intact, length: whole.count - 7 - intact)])
        let (status, console) = await sdl("outbox", fixture.root)
        #expect(status == 0)
        #expect(console.output.contains("damaged: 1 (\(whole.count - 7 - intact) bytes at offset \(intact))"))
    }

    @Test("a damaged batch: one bad record skipped and located, the records around it kept")
    func damaged() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let area = fixture.area(ownerPID: deadPID)
        var offset = 0
        fixture.batch(in: area, sequence: 4, timestamps: [10, 20, 30]) { bytes in
            // Flip a byte inside the second event's payload: its checksum no longer matches.
            // Records are found by the reader, not by searching for the 0xFF marker: a CRC or a
            // length can hold 0xFF too, and the batch id is random.
            let records = bytes.withUnsafeBytes { JournalRecord.scan($0).records }
            let second = records[2]  // after the header record and the first event
            offset = second.lowerBound - JournalRecord.headerSize
            bytes[second.lowerBound + 8] ^= 0x01
        }
        let batch = try #require(OutboxInspector.inspect(root: fixture.root).areas.first?.batches.first)
        #expect(batch.events == 2 && batch.oldestTimestamp == 10 && batch.newestTimestamp == 30)
        #expect(batch.damage.count == 1 && batch.damage.first?.offset == offset)
        let (_, console) = await sdl("outbox", fixture.root)
        #expect(console.output.contains("damaged: 1 (") && console.output.contains("at offset \(offset))"))
        #expect(console.output.contains("1 damaged records"))
    }

    @Test("set-aside and quarantined files are listed; requeue moves set-aside batches back, one rename each")
    func setAsideAndRequeue() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let area = fixture.area(ownerPID: deadPID)
        let name = fixture.batch(in: area, folder: "set-aside", sequence: 3, timestamps: [5, 6])
        _ = FileManager.default.createFile(atPath: fixture.root + "/quarantine/junk.batch.1234", contents: Data([1, 2, 3]))
        let (status, console) = await sdl("outbox", fixture.root)
        #expect(status == 0)
        #expect(console.output.contains("set-aside/: 1 files, 2 events"))
        #expect(console.output.contains("quarantine/: 1 files") && console.output.contains("junk.batch.1234  3 bytes"))
        #expect(console.output.contains("sdl outbox requeue \(fixture.root)"), "says how to send them again")

        let (requeued, output) = await sdl("outbox", "requeue", fixture.root)
        #expect(requeued == 0, "\(output.errors)")
        #expect(output.output.contains("1 set-aside batches moved back"))
        #expect(FileManager.default.fileExists(atPath: area + "/batches/" + name))
        #expect(!FileManager.default.fileExists(atPath: area + "/set-aside/" + name))
        let report = OutboxInspector.inspect(root: fixture.root)
        #expect(report.pendingEvents == 2 && report.setAsideEvents == 0)
    }

    @Test("a locked area: held by a live pid; requeue refuses with 75 and moves nothing")
    func locked() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let area = fixture.area(ownerPID: getpid())
        let name = fixture.batch(in: area, folder: "set-aside", sequence: 1, timestamps: [1])
        let lock = try #require(HeldLock(area: area))
        defer { lock.release() }

        let a0 = try #require(OutboxInspector.inspect(root: fixture.root).areas.first)
        #expect(a0.lock.ownerPID == getpid() && a0.lock.ownerAlive == true)
        if case .held = a0.lock.state {} else { Issue.record("expected held, got \(a0.lock.state)") }
        #if os(Linux)
        #expect(a0.lock.state == .held(byPID: getpid()) && a0.lock.method == "/proc/locks")
        #endif
        let (status, console) = await sdl("outbox", fixture.root)
        #expect(status == 0 && console.output.contains("in use: lock held"))
        #expect(HeldLock(area: area) == nil, "inspecting did not disturb the holder")

        let (refused, output) = await sdl("outbox", "requeue", fixture.root)
        #expect(refused == 75)
        #expect(output.errors.contains("area a0 is in use by pid \(getpid())") && output.errors.contains("Stop that process"))
        #expect(FileManager.default.fileExists(atPath: area + "/set-aside/" + name), "nothing moved")
    }

    @Test("a real client's outbox: its area is held by this process while it runs, free after shutdown")
    func realClient() async throws {
        let folder = TemporaryDirectory("sdl-outbox")
        defer { folder.remove() }
        var tuning = ClientTuning()
        tuning.startsUploader = false
        let client = SimpleDataLogsClient(clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: tuning, environment: [:])
        client.configure(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: folder.url))
        for index in 0..<60 { client.track("e", properties: ["i": .int(Int64(index))]) }
        await client.flush()
        let running = try #require(OutboxInspector.inspect(root: folder.path).areas.first)
        #expect(running.lock.ownerPID == getpid())
        if case .held = running.lock.state {} else { Issue.record("expected held, got \(running.lock.state)") }
        #expect(running.pendingEvents == 60 && running.batches.count == 2)
        await shutDown(client, timeLimit: .zero)
        let stopped = try #require(OutboxInspector.inspect(root: folder.path).areas.first)
        #expect(stopped.lock.state == .free && stopped.pendingEvents == 60)
    }

    @Test("no folder: exit 66 with what to type; the default folder follows SDL_STORAGE_DIR, then XDG_DATA_HOME and --app-id")
    func defaults() async {
        let (status, console) = await sdl(["outbox", "/nonexistent/sdl-outbox"])
        #expect(status == 66 && console.errors.contains("no outbox at /nonexistent/sdl-outbox"))
        #expect(OutboxInspector.defaultRoot(appID: "x", environment: ["SDL_STORAGE_DIR": "/s", "HOME": "/h"]) == "/s")
        #if os(Linux)
        #expect(OutboxInspector.defaultRoot(appID: "myapp", environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/myapp/SimpleDataLogs")
        #expect(OutboxInspector.defaultRoot(appID: "myapp", environment: ["HOME": "/h"]) == "/h/.local/share/myapp/SimpleDataLogs")
        let (_, byApp) = await sdl(["outbox", "--app-id", "myapp"], environment: ["HOME": "/nonexistent-home"])
        #expect(byApp.errors.contains("/nonexistent-home/.local/share/myapp/SimpleDataLogs"))
        #endif
    }
}
