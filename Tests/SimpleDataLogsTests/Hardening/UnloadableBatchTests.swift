import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting
import SDLCommands

/// A batch the uploader cannot load must cost neither the batches behind it nor a core.
@Suite("Hardening: a batch that cannot be loaded never stalls delivery", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct UnloadableBatchTests {
    /// An outbox left by an earlier run: `batches` sealed batches of 50 events, uploads off,
    /// tracked for a loopback port reserved for it (no ingest of the process gets it from port
    /// 0): an area's events wait for the endpoint they were tracked for, so the test's ingest
    /// listens there (``withDeliveryToItsEndpoint(_:faults:_:)``).
    static func leftOutbox(batches: Int) async -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        var quiet = ClientTuning()
        quiet.startsUploader = false
        let port = (try? closedLoopbackPort()) ?? 9
        reservedPorts.withLock { $0[directory.path] = port }
        let earlier = TestClient(tuning: quiet, directory: directory, endpoint: URL(string: "http://127.0.0.1:\(port)")!)
        for seq in 0..<(batches * 50) { earlier.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await earlier.client.flush()
        await shutDown(earlier.client)
        return directory
    }

    /// The port each ``leftOutbox(batches:)`` folder was tracked for.
    private static let reservedPorts = Locked<[String: Int]>([:])

    /// A client sending to the ingest on `directory`'s reserved port: ``TestClient`` for a launch
    /// that sends nothing yet, ``withDelivery`` for one that does.
    static func endpoint(of directory: TemporaryDirectory) -> URL {
        URL(string: "http://127.0.0.1:\(reservedPorts.withLock { $0[directory.path] } ?? 9)")!
    }

    /// ``withDelivery`` with its ingest on the port `directory`'s events were tracked for.
    static func withDeliveryToItsEndpoint(
        _ directory: TemporaryDirectory, faults: FaultInjection = FaultInjection(), _ body: (Delivery) async throws -> Void
    ) async throws {
        let port = reservedPorts.withLock { $0[directory.path] } ?? 0
        try await withDelivery(ingest: LocalIngest.Configuration(port: port), directory: directory, faults: faults, body)
    }

    static func batchFiles(in directory: TemporaryDirectory) -> [String] {
        JournalReader.files(under: directory.path).filter { $0.hasSuffix(".batch") }
    }

    @Test("a batch named with an uppercase id (as UUID().uuidString prints) is renamed at launch and delivered; flush returns")
    func uppercaseName() async throws {
        let directory = await Self.leftOutbox(batches: 2)
        for file in Self.batchFiles(in: directory) {
            let folder = (file as NSString).deletingLastPathComponent
            let name = (file as NSString).lastPathComponent
            let upper = String(name.prefix(15)) + name.dropFirst(15).dropLast(".batch".count).uppercased() + ".batch"
            try FileManager.default.moveItem(atPath: directory.path + "/" + file, toPath: directory.path + "/" + folder + "/" + upper)
        }
        #expect(Self.batchFiles(in: directory).allSatisfy { $0.contains("-R-") == false && $0 != $0.lowercased() })
        try await Self.withDeliveryToItsEndpoint(directory) { delivery in
            let result = try await withTimeLimit(.seconds(30), waitingFor: "flush() to return") { await delivery.client.flush() }
            // The launch's own pass may deliver a batch before flush() starts: the counters, not
            // this flush's share, say that all 100 went.
            #expect(delivery.client.counters.delivered == 100 && delivery.deliveredSeqs == Array(0..<100), "\(result)")
            #expect(Self.batchFiles(in: directory).isEmpty)
        }
    }

    @Test("a batch file deleted behind the SDK: counted lostFromDisk with one error line, the batch behind it delivered, flush returns")
    func vanishedFile() async throws {
        let directory = await Self.leftOutbox(batches: 2)
        try await Self.withDeliveryToItsEndpoint(directory) { delivery in
            // The launch pass meets a 503 and backs off on the manual clock: the uploader is idle.
            delivery.ingest.script([.status(503)])
            #expect(await delivery.ingest.waitForRequests(count: 1))
            let first = try #require(Self.batchFiles(in: directory).sorted().first)
            try FileManager.default.removeItem(atPath: directory.path + "/" + first)
            let result = try await withTimeLimit(.seconds(30), waitingFor: "flush() to return") { await delivery.client.flush() }
            #expect(result.delivered == 50 && delivery.deliveredSeqs == Array(50..<100))
            let counters = delivery.client.counters
            #expect(counters.lostFromDisk == 50 && counters.pendingOnDisk == 0 && counters.isBalanced, "\(counters)")
            #expect(delivery.test.log.lines.filter { $0.level == .error && $0.message.contains("vanished from the outbox") }.count == 1)
        }
    }

    @Test("a batch that cannot be read now (EIO): kept with one warning, the batch behind it delivered, retried by a timer once the disk reads again")
    func unreadableFile() async throws {
        let directory = await Self.leftOutbox(batches: 2)
        let fileSystem = FaultInjectingFileSystem()
        try await Self.withDeliveryToItsEndpoint(directory, faults: fileSystem.injection) { delivery in
            delivery.ingest.script([.status(503)])
            #expect(await delivery.ingest.waitForRequests(count: 1))
            let first = try #require(Self.batchFiles(in: directory).sorted().first)
            fileSystem.failReads(ofPathsContaining: (first as NSString).lastPathComponent, with: EIO)
            let result = try await withTimeLimit(.seconds(30), waitingFor: "flush() to return") { await delivery.client.flush() }
            #expect(result.delivered == 50 && delivery.deliveredSeqs == Array(50..<100))
            #expect(delivery.client.counters.pendingOnDisk == 50, "kept")
            #expect(delivery.test.log.lines.filter { $0.level == .warning && $0.message.contains("Could not read 1 batch file") }.count == 1)
            // The disk reads again; the retry timer (on the manual clock) sends it without a new event.
            fileSystem.clearAll()
            try #require(await delivery.test.clock.waitForSleepers(count: 1))
            delivery.test.clock.advance(by: .seconds(301))
            #expect(await delivery.ingest.waitForEvents(count: 100))
            #expect(delivery.deliveredSeqs == Array(0..<100))
        }
    }

    @Test("sdl send on a prepared folder holding a misnamed (uppercase-id) batch and a name with Int.max: exit 0, everything delivered, no spin")
    func sdlSendOnPreparedFolder() async throws {
        let directory = TemporaryDirectory("sdl-send")
        defer { directory.remove() }
        // The key and endpoint `sdl send` uses below: an area's events wait for theirs.
        let earlier = try Delivery(key: "sdl_sec_cli_test_000000", directory: directory, adjust: { $0.appID = "sdl" })
        earlier.ingest.stop()
        earlier.track(0..<50)
        await earlier.client.flush()
        await shutDown(earlier.client)
        for file in Self.batchFiles(in: directory) {
            let folder = (file as NSString).deletingLastPathComponent
            let name = (file as NSString).lastPathComponent
            let upper = String(name.prefix(15)) + name.dropFirst(15).dropLast(".batch".count).uppercased() + ".batch"
            try FileManager.default.moveItem(atPath: directory.path + "/" + file, toPath: directory.path + "/" + folder + "/" + upper)
            try Data().write(to: URL(fileURLWithPath: directory.path + "/" + folder + "/9223372036854775807-r-00000000-0000-0000-0000-000000000009.batch"))
        }
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(port: earlier.ingest.port))
        defer { ingest.stop() }
        let (status, console) = await sdl(
            "send", "after_the_rename", "--endpoint", ingest.endpoint.absoluteString, "--key", "sdl_sec_cli_test_000000",
            "--storage", directory.path, "--timeout", "20"
        )
        #expect(status == 0, "\(console.errors)")
        #expect(ingest.receivedEvents.count == 51, "the 50 left behind and the new one")
    }

    @Test("names with a sequence past twelve digits (Int.max) are not ours: quarantined, and the launch does not trap")
    func hugeSequence() async throws {
        #expect(JournalName.batchParts("9223372036854775807-r-00000000-0000-0000-0000-000000000000.batch") == nil)
        #expect(JournalName.journalSequence("journal-9223372036854775807.log") == nil)
        #expect(JournalName.batchParts("000000000007-r-00000000-0000-0000-0000-000000000000.batch")?.sequence == 7)
        let directory = await Self.leftOutbox(batches: 1)
        let file = try #require(Self.batchFiles(in: directory).first)
        let folder = directory.path + "/" + (file as NSString).deletingLastPathComponent
        try FileManager.default.copyItem(atPath: directory.path + "/" + file, toPath: folder + "/9223372036854775807-r-00000000-0000-0000-0000-000000000001.batch")
        try Data().write(to: URL(fileURLWithPath: folder.replacingOccurrences(of: "/batches", with: "") + "/journal-9223372036854775807.log"))
        try await Self.withDeliveryToItsEndpoint(directory) { delivery in
            let result = await delivery.client.flush()
            #expect(result.delivered == 50)
            #expect(JournalReader.files(under: directory.path).contains { $0.hasPrefix("quarantine/") })
        }
    }
}
