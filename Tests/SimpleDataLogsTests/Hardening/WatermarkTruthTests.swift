import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: the watermark promises only what is on disk", .stuckTestLimit)
struct WatermarkTruthTests {
    @Test("writes that fail do not move the watermark; the rewrite that puts them on disk does")
    func failedWrites() async throws {
        let fileSystem = FaultInjectingFileSystem()
        try await withTestClient(faults: fileSystem.injection) { test throws in
            for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 5)
            fileSystem.failWrites(with: ENOSPC)
            for seq in 5..<8 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 5, "three events only in memory: not promised")
            fileSystem.clearAll()
            test.client.track("e", properties: ["seq": 8])
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 9, "the rewrite put all of them on disk")
            #expect(try test.journaledEvents().count == 9)
        }
    }

    @Test("with no storage folder (memory only) the watermark never moves: nothing survives kill -9")
    func memoryOnly() async throws {
        await withTestClient(environment: ["HOME": ""], adjust: { $0.storageDirectory = nil }) { test in
            for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 0)
            #expect(test.client.counters.pending == 5)
        }
    }
}
