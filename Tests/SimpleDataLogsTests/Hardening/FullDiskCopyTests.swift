import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a full disk never costs the only durable copy", .stuckTestLimit, .skippedInFastLoop)
struct FullDiskCopyTests {
    @Test("a 413 split on a full disk is undone: the parent's file stays until both halves are files, then it splits and everything is delivered", .tags(.sockets))
    func splitOnFullDisk() async throws {
        let fileSystem = FaultInjectingFileSystem()
        try await withDelivery(ingest: LocalIngest.Configuration(maxBodyBytes: 2_000), faults: fileSystem.injection, adjust: { $0.compressesRequests = false }) { delivery in
            delivery.track(0..<16)
            await delivery.test.drain()
            fileSystem.failOpens(with: ENOSPC)
            await delivery.client.flush()
            let onDisk = try JournalReader.events(inOutbox: delivery.test.directory.path).compactMap { $0.int("seq") }
            #expect(onDisk.sorted() == Array(0..<16), "the parent's file is still the durable copy: \(onDisk)")
            #expect(delivery.client.counters.pending == 16 && delivery.client.counters.isBalanced)
            fileSystem.clearAll()
            for _ in 0..<6 where delivery.client.counters.delivered < 16 { await delivery.client.flush() }
            #expect(delivery.deliveredSeqs == Array(0..<16))
            #expect(delivery.client.counters.isBalanced)
        }
    }

    @Test("recovery on a full disk keeps the journal it could not turn into a batch file")
    func recoveryOnFullDisk() async throws {
        let directory = TemporaryDirectory()
        let earlier = TestClient(directory: directory)
        for seq in 0..<10 { earlier.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await earlier.drain()
        // What a kill after the journal's write leaves: keep the journal as it is now, and put
        // it back after the shutdown has sealed it.
        let journal = try #require(JournalReader.files(under: directory.path).first { $0.contains("journal-") })
        let bytes = try Data(contentsOf: directory.url.appendingPathComponent(journal))
        await shutDown(earlier.client)
        for file in JournalReader.files(under: directory.path) where file.hasSuffix(".batch") {
            try FileManager.default.removeItem(atPath: directory.path + "/" + file)
        }
        try bytes.write(to: directory.url.appendingPathComponent(journal))

        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failOpens(with: ENOSPC)
        let next = TestClient(faults: fileSystem.injection, directory: directory)
        await next.drain()
        #expect(next.client.counters.recovered == 10)
        let onDisk = try JournalReader.events(inOutbox: directory.path).compactMap { $0.int("seq") }
        #expect(onDisk.sorted() == Array(0..<10), "the journal is still the durable copy: \(onDisk)")
        await shutDown(next.client)

        // The disk is back: the next launch seals it once, no event twice.
        try await withTestClient(directory: directory) { last in
            await last.drain()
            let events = try last.journaledEvents().compactMap { $0.int("seq") }
            #expect(events.sorted() == Array(0..<10))
        }
    }
}
