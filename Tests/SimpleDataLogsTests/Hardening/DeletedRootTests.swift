import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a storage folder deleted under a live client", .stuckTestLimit)
struct DeletedRootTests {
    @Test("the root deleted under a live client, a second client on the same folder: the first takes another area, locked, rewrites what memory holds, and nothing is lost or shared")
    func rootDeletedThenASecondClient() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = TestClient(directory: directory)
        for seq in 0..<30 { first.client.track("first", properties: ["seq": .int(Int64(seq))]) }
        await first.drain()
        #expect(first.client.journalWatermark.eventsWritten == 30)
        try FileManager.default.removeItem(atPath: directory.path)

        // Another process (a client of its own here) makes the folder again and takes an area.
        let second = TestClient(directory: directory)
        for seq in 0..<30 { second.client.track("second", properties: ["seq": .int(Int64(seq))]) }
        await second.drain()

        // The first client writes again: it must not write into the second one's area.
        for seq in 30..<100 { first.client.track("first", properties: ["seq": .int(Int64(seq))]) }
        await first.drain()
        for seq in 30..<60 { second.client.track("second", properties: ["seq": .int(Int64(seq))]) }
        await second.drain()

        let firstArea = await first.client.pipeline?.outbox.area?.folder
        let secondArea = await second.client.pipeline?.outbox.area?.folder
        #expect(firstArea != nil && secondArea != nil && firstArea != secondArea, "one writer per area: \(String(describing: firstArea)), \(String(describing: secondArea))")
        if let firstArea {
            // Locked again: a third client cannot take the first one's new area.
            let refused: Bool = try await onOwnThread {
                guard case .failure(.held) = AreaLock.acquire(AreaLayout(folder: firstArea), fileSystem: PosixFileSystem()) else { return false }
                return true
            }
            #expect(refused, "the new area is locked")
        }
        let firstCounters = first.client.counters
        #expect(firstCounters.lostFromDisk == 0 && firstCounters.pendingOnDisk == 100 && firstCounters.isBalanced, "\(firstCounters)")
        await shutDown(first.client)
        await shutDown(second.client)

        // The next launch finds every event of both, each once: nothing lost to a shared area.
        try await withTestClient(directory: directory) { next throws in
            let events = try await next.flushedEvents()
            let firsts = events.filter { $0.name == "first" }.map(\.seqNumber).sorted()
            let seconds = events.filter { $0.name == "second" }.map(\.seqNumber).sorted()
            #expect(firsts == Array(0..<100), "the first client's events, once each (\(firsts.count))")
            #expect(seconds == Array(0..<60), "the second client's events, once each (\(seconds.count))")
        }
    }

    @Test("only the area folder deleted: the client takes an area again before it writes, and nothing in memory is lost")
    func areaFolderDeleted() async throws {
        try await withTestClient { test throws in
            for seq in 0..<20 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            let area = try #require(await test.client.pipeline?.outbox.area?.folder)
            try FileManager.default.removeItem(atPath: area)
            for seq in 20..<30 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            let events = try await test.flushedEvents()
            #expect(events.map(\.seqNumber).sorted() == Array(0..<30))
            #expect(test.client.journalWatermark.eventsWritten >= 30)
            #expect(test.client.counters.isBalanced, "\(test.client.counters)")
        }
    }
}
