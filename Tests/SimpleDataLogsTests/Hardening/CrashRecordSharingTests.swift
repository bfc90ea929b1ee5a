#if os(Linux) && canImport(Glibc)
import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: crash records survive a shared folder and a launch that dies before sending", .stuckTestLimit, .skippedInFastLoop)
struct CrashRecordSharingTests {
    /// A complete Linux record, as the handler writes one.
    static let record = "SDLCRASH 1\nsignal 6 SIGABRT\ncode -6\npc 0x0\nend\n"
    /// Under a sanitizer its own handlers would stand between the abort and the record.
    static let childEnvironment = [
        "TSAN_OPTIONS": "handle_segv=0:handle_sigill=0:handle_abort=0",
        "ASAN_OPTIONS": "handle_segv=0:handle_sigill=0:handle_abort=0:detect_leaks=0",
    ]

    /// Writes a record an ended process left, named as the SDK names them.
    static func plantRecord(in directory: TemporaryDirectory) throws -> UUID {
        let id = UUID()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let path = directory.path + "/crash-\(id.uuidString.lowercased()).record"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(record.utf8)))
        return id
    }

    static func recordFiles(in directory: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter(CrashRecordFiles.isRecordName)
    }

    /// The next launch sends the record as one `app_crashed` under the record's id, and deletes it.
    static func relaunchSendsOnce(_ id: UUID, from directory: TemporaryDirectory) async throws {
        let ingest = try LocalIngest()
        await withTestClient(directory: directory, endpoint: ingest.endpoint) { relaunched in
            await relaunched.client.flush()
            let crashes = ingest.receivedEvents.filter { $0.name == "app_crashed" }
            #expect(crashes.map(\.eventID) == [id.uuidString.lowercased()])
            #expect(recordFiles(in: directory).isEmpty)
        }
        ingest.stop()
    }

    @Test("a second process launched in the same folder leaves the first one's live record alone: the first one's crash arrives", .tags(.processes, .sockets))
    func sharedFolder() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        // The children's records are for this endpoint (a record, like an area, waits for its own).
        let port = try closedLoopbackPort()
        let environment = Self.childEnvironment.merging(["SDL_TEST_ENDPOINT": "http://127.0.0.1:\(port)"]) { $1 }
        let (first, second) = try await onOwnThread {
            let first = try ChildProcess("OutboxCrashChild", ["on-cue", path, "first"], environment: environment)
            _ = first.readLine { $0 == "ready" }
            // The second launch takes what ended processes left; the first is alive, its record locked.
            let second = try ChildProcess("OutboxCrashChild", ["on-cue", path, "second"], environment: environment)
            _ = second.readLine { $0 == "ready" }
            second.send("exit")
            let secondEnding = second.wait()
            first.send("crash")
            return (first.wait(), secondEnding)
        }
        #expect(second.reason == .exit && second.status == 0)
        #expect(first.reason == .uncaughtSignal && first.status == SIGABRT)

        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(port: port))
        await withTestClient(directory: directory, endpoint: ingest.endpoint) { relaunched in
            await relaunched.client.flush()
            let crashes = ingest.receivedEvents.filter { $0.name == "app_crashed" }
            #expect(crashes.count == 1, "the first process's crash, recorded after the second launch")
            #expect(crashes.first?.properties["exception_name"] == .string("SIGABRT"))
            #expect(Self.recordFiles(in: directory).isEmpty, "both records taken: the crash sent, the clean exit's empty one deleted")
        }
        ingest.stop()
    }

    @Test("a key rotated at run time renames the live crash record: the crash after it is sent by a launch with the new key alone, and the old key's launch leaves it", .tags(.processes, .sockets))
    func rotatedKeyCarriesTheCrash() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        let newKey = "sdl_pub_rotated0000000000"
        let port = try closedLoopbackPort()
        let endpoint = URL(string: "http://127.0.0.1:\(port)")!
        let environment = Self.childEnvironment.merging(["SDL_TEST_ENDPOINT": endpoint.absoluteString]) { $1 }
        let ending = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["on-cue", path, "before_rotation"], environment: environment)
            _ = child.readLine { $0 == "ready" }
            child.send("rotate \(newKey)")
            _ = child.readLine { $0 == "rotated" }
            child.send("crash")
            return child.wait()
        }
        #expect(ending.reason == .uncaughtSignal && ending.status == SIGABRT)
        let eventsURL = endpoint.appending(path: "v1/events")
        let tags = Self.recordFiles(in: directory).compactMap { CrashRecordFiles.parts(ofName: $0)?.tag }
        #expect(tags == [AreaOwner(ingestKey: newKey, eventsURL: eventsURL).tag], "the record is the new key's")

        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(port: port))
        defer { ingest.stop() }
        // The replaced key's launch: neither the crash nor the events are its own now.
        let withOldKey = TestClient(directory: directory, endpoint: ingest.endpoint)
        await withOldKey.client.flush()
        await shutDown(withOldKey.client)
        #expect(ingest.receivedEvents.isEmpty)
        _ = await withTestClient(key: newKey, directory: directory, endpoint: ingest.endpoint) { relaunched in
            await relaunched.client.flush()
            #expect(ingest.receivedEvents.filter { $0.name == "app_crashed" }.count == 1, "the crash after the rotation, with the new key")
            #expect(Set(ingest.receivedEvents.map(\.name)).isSuperset(of: ["before_rotation", "after_rotation"]))
            #expect(Self.recordFiles(in: directory).isEmpty, "sent, then deleted")
        }
    }

    @Test("a record stays on disk, locked, until its app_crashed is journaled; then it is deleted, and the event carries the record's id", .tags(.sockets))
    func deletedOnlyOnceJournaled() async throws {
        let directory = TemporaryDirectory()
        let id = try Self.plantRecord(in: directory)
        let ingest = try LocalIngest()
        let gate = WriterGate()
        await withTestClient(gate: gate, directory: directory, endpoint: ingest.endpoint) { test in
            #expect(Self.recordFiles(in: directory).count == 1, "taken, but its event is not on disk yet")
            #expect(CrashRecordFiles.takeLeftovers(in: directory.path, fileSystem: PosixFileSystem()).isEmpty, "locked by the launch that took it")
            gate.open()
            await test.drain()
            #expect(Self.recordFiles(in: directory).isEmpty)
            await test.client.flush()
            let crashes = ingest.receivedEvents.filter { $0.name == "app_crashed" }
            #expect(crashes.map(\.eventID) == [id.uuidString.lowercased()])
        }
        ingest.stop()
    }

    @Test("a launch killed before the crash is journaled leaves the record: the next launch sends it, once", .tags(.processes, .sockets))
    func killedBeforeJournaled() async throws {
        let directory = TemporaryDirectory()
        let id = try Self.plantRecord(in: directory)
        let path = directory.path
        try await onOwnThread {
            // The child takes the record at configure; SIGKILL before its journal runs a chunk
            // would be a race, so the child is killed while its journal waits on a closed gate.
            let child = try ChildProcess("OutboxCrashChild", ["hold-gated", path, "1"], environment: Self.childEnvironment)
            _ = child.readLine { $0 == "ready" }
            child.kill()
        }
        #expect(Self.recordFiles(in: directory).count == 1)
        try await Self.relaunchSendsOnce(id, from: directory)
    }

    @Test("when the journal cannot write, the record is kept for the next launch, which sends it under the same id", .tags(.sockets))
    func keptWhileOnlyInMemory() async throws {
        let directory = TemporaryDirectory()
        let id = try Self.plantRecord(in: directory)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failWrites(with: ENOSPC)
        let failing = TestClient(faults: fileSystem.injection, directory: directory)
        await failing.drain()
        #expect(Self.recordFiles(in: directory).count == 1, "the event is only in memory")
        await shutDown(failing.client)
        #expect(Self.recordFiles(in: directory).count == 1, "given back, not deleted, at shutdown")

        try await Self.relaunchSendsOnce(id, from: directory)
    }

    @Test("a record tagged with a key the client replaced is sent with previousIngestKeys, once, with the new key; without it, it stays for that key's client", .tags(.sockets))
    func replacedKeysRecord() async throws {
        let (oldKey, newKey) = ("sdl_sec_crash_old_000000000", "sdl_sec_crash_new_111111111")
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: newKey))
        defer { ingest.stop() }
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let id = UUID()
        let oldTag = AreaOwner(ingestKey: oldKey, eventsURL: ingest.endpoint.appending(path: "v1/events")).tag
        let path = directory.path + "/crash-\(id.uuidString.lowercased())-\(oldTag).record"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.record.utf8)))

        let withoutIt = TestClient(key: newKey, directory: directory, endpoint: ingest.endpoint)
        await withoutIt.client.flush()
        await shutDown(withoutIt.client)
        #expect(ingest.receivedEvents.filter { $0.name == "app_crashed" }.isEmpty)
        #expect(FileManager.default.fileExists(atPath: path), "another key's record is left alone")

        await withTestClient(key: newKey, directory: directory, endpoint: ingest.endpoint, adjust: { $0.previousIngestKeys = [oldKey] }) { relaunched in
            await relaunched.client.flush()
            let crashes = ingest.receivedEvents.filter { $0.name == "app_crashed" }
            #expect(crashes.map(\.eventID) == [id.uuidString.lowercased()], "sent once, under the record's id")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("the opt-out deletes records handed over and those of ended processes, and sends none")
    func optOut() async throws {
        let directory = TemporaryDirectory()
        _ = try Self.plantRecord(in: directory)
        let gate = WriterGate()
        try await withTestClient(gate: gate, directory: directory) { test in
            _ = try Self.plantRecord(in: directory) // another ended process's, arriving after the launch
            test.client.setEnabled(false)
            gate.open()
            await test.drain()
            #expect(Self.recordFiles(in: directory).isEmpty)
            #expect(try test.journaledEvents().isEmpty)
        }
    }
}
#endif
