import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A storage folder under `blocked`, a regular file where a parent folder goes: it cannot be
/// made until the file is removed. Returns the folder and the blocking file's path.
private func blockedFolder() throws -> (folder: TemporaryDirectory, blocker: String, base: TemporaryDirectory) {
    let base = TemporaryDirectory("sdl-blocked")
    try FileManager.default.createDirectory(atPath: base.path, withIntermediateDirectories: true)
    let blocker = base.path + "/parent"
    #expect(FileManager.default.createFile(atPath: blocker, contents: Data("not a folder".utf8)))
    return (TemporaryDirectory(path: blocker + "/outbox"), blocker, base)
}

extension JournaledEvent {
    /// The `seq` property the tests give their events, or -1.
    var seqNumber: Int {
        if case .int(let seq)? = props["seq"] { return Int(seq) }
        return -1
    }
}

extension TemporaryDirectory {
    /// A folder at this exact path (not made here).
    init(path: String) { self.path = path }
}

@Suite("Hardening: a folder that cannot be made at configure is tried again", .stuckTestLimit, .skippedInFastLoop)
struct LateFolderTests {
    @Test("the folder blocked at configure is tried again on the client's clock; once free, the events held in memory are journaled, and the counters never called them disk")
    func blockedThenFreedOnTheClock() async throws {
        let (folder, blocker, base) = try blockedFolder()
        defer { base.remove() }
        try await withTestClient(directory: folder, adjust: { $0.logLevel = .info }) { test throws in
            for seq in 0..<10 { test.client.track("early", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            var counters = test.client.counters
            #expect(counters.pendingInMemory == 10 && counters.pendingOnDisk == 0 && counters.isBalanced, "memory is not disk: \(counters)")
            #expect(test.client.journalWatermark.eventsWritten == 0)
            #expect(!test.log.lines(containing: "tried again").isEmpty, "the line says what happens next")
            // The retry timer and the open batch's seal timer.
            try #require(await test.clock.waitForSleepers(count: 2, timeout: .seconds(10)), "a retry is scheduled")
            try FileManager.default.removeItem(atPath: blocker)
            test.clock.advance(by: StorageRetrySchedule.firstDelay)
            let journaled = try await onOwnThread { [client = test.client] in client.blockUntilJournaled(atLeast: 10, timeout: .seconds(30)) }
            #expect(journaled, "the retry found the folder and wrote what memory held")
            await test.drain()
            counters = test.client.counters
            #expect(counters.pendingInMemory == 0 && counters.pendingOnDisk == 10 && counters.isBalanced, "\(counters)")
            // And the client goes on normally.
            for seq in 10..<15 { test.client.track("late", properties: ["seq": .int(Int64(seq))]) }
            let events = try await test.flushedEvents()
            #expect(events.map(\.seqNumber).sorted() == Array(0..<15), "every event on disk once")
            #expect(!test.log.lines(containing: "can be used now").isEmpty)
        }
    }

    @Test("a flush tries the folder at once, whatever the schedule says")
    func flushTriesTheFolder() async throws {
        let (folder, blocker, base) = try blockedFolder()
        defer { base.remove() }
        try await withTestClient(directory: folder) { test throws in
            for seq in 0..<7 { test.client.track("early", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            try FileManager.default.removeItem(atPath: blocker)
            await test.client.flush()
            #expect(test.client.journalWatermark.eventsWritten == 7)
            #expect(try test.journaledEvents().map(\.seqNumber).sorted() == Array(0..<7))
            #expect(test.client.counters.pendingOnDisk == 7 && test.client.counters.pendingInMemory == 0)
        }
    }

    @Test("shutdown tries the folder: what memory held is on disk for the next launch")
    func shutdownTriesTheFolder() async throws {
        let (folder, blocker, base) = try blockedFolder()
        defer { base.remove() }
        let test = TestClient(directory: folder)
        for seq in 0..<12 { test.client.track("early", properties: ["seq": .int(Int64(seq))]) }
        await test.drain()
        try FileManager.default.removeItem(atPath: blocker)
        await shutDown(test.client)
        #expect(try JournalReader.events(inOutbox: folder.path).map(\.seqNumber).sorted() == Array(0..<12))
    }

    @Test("a child tracks while its folder is blocked; the folder is freed, the child's retry journals the events, it is killed with SIGKILL; the next launch delivers every one", .tags(.processes, .sockets))
    func killedAfterTheFolderCameBack() async throws {
        let (folder, blocker, base) = try blockedFolder()
        defer { base.remove() }
        let path = folder.path
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let endpoint = ingest.endpoint.absoluteString
        let outcome = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["blocked-folder", path, "120"], environment: ["SDL_TEST_ENDPOINT": endpoint])
            defer { child.kill() }
            guard child.readLine(until: { $0 == "tracked" }) != nil else { return "no tracked line" }
            try FileManager.default.removeItem(atPath: blocker)
            return child.readLine(until: { $0.contains("journaled") }) ?? "no journaled line"
        }
        #expect(outcome == "journaled 120", "\(outcome)")
        try await withTestClient(directory: folder, endpoint: ingest.endpoint) { next throws in
            await next.client.flush()
            #expect(ingest.summary.accepted == 120, "\(ingest.summary)")
            let seqs = ingest.receivedEvents.compactMap { event -> Int? in
                if case .int(let seq)? = event.properties["seq"] { return Int(seq) }
                return nil
            }
            #expect(seqs.sorted() == Array(0..<120))
        }
    }
}
