import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a durable copy is never destroyed before its replacement is durable", .stuckTestLimit)
struct DurableCopyTests {
    @Test("rewriting the journal after a failed write never truncates it: the records under the watermark stay on disk while the disk fails")
    func rewriteNeverTruncates() async throws {
        let fileSystem = FaultInjectingFileSystem()
        try await withTestClient(faults: fileSystem.injection) { test in
            for seq in 0..<10 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 10)
            #expect(try test.journaledEvents().count == 10)
            fileSystem.failWrites(with: EIO)
            test.client.track("e", properties: ["seq": 10])
            await test.drain()
            // The next write rewrites the whole open batch; it fails too.
            test.client.track("e", properties: ["seq": 11])
            await test.drain()
            let onDisk = try test.journaledEvents().compactMap { $0.int("seq") }
            #expect(Array(onDisk.prefix(10)) == Array(0..<10), "the 10 written records survive a kill at this moment: \(onDisk)")
            // The disk is back: the rewrite replaces the journal whole, by a rename.
            fileSystem.clearAll()
            test.client.track("e", properties: ["seq": 12])
            let events = try await test.flushedEvents()
            #expect(events.compactMap { $0.int("seq") } == Array(0..<13))
            #expect(!JournalReader.files(under: test.directory.path).contains { $0.contains("/tmp/") })
        }
    }
}
