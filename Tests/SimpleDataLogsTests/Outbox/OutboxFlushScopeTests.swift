import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Outbox: what its flushes and deletes touch, and on which thread", .stuckTestLimit)
struct OutboxFlushScopeTests {
    @Test("a client delivering 1,000 events flushes only its own files and folders, one file at a time, and syncs and deletes on the sealer's thread, never the journal's")
    func flushesStayInsideTheOutbox() async throws {
        let files = FaultInjectingFileSystem()
        try await withDelivery(faults: files.injection) { delivery in
            delivery.track(0..<1_000)
            let result = await delivery.client.flush()
            #expect(result.delivered == 1_000 && delivery.deliveredSeqs == Array(0..<1_000))
            let root = delivery.test.directory.path + "/"
            let flushes = files.flushes
            // Every call names one path (the seam has no whole-file-system flush), and each is
            // the client's own: nothing else on the host is flushed on its behalf.
            let outside = flushes.filter { !$0.path.hasPrefix(root) }
            #expect(outside.isEmpty, "flushed or deleted outside the outbox: \(outside.prefix(3))")
            // The 20 journals of 50 events: each made durable by its own fdatasync, on the sealer.
            let dataSyncs = flushes.filter { $0.kind == .syncData }
            #expect(dataSyncs.count == 20 && Set(dataSyncs.map(\.path)).count == 20)
            #expect(dataSyncs.allSatisfy { $0.path.contains("/journal-") })
            #expect(dataSyncs.allSatisfy { $0.thread == "sdl.sealer" }, "\(Set(dataSyncs.map(\.thread)))")
            // The delivered batches' files are deleted on the sealer's thread too, and are gone
            // when flush returns.
            let deletes = flushes.filter { $0.kind == .remove && $0.path.hasSuffix(".batch") }
            #expect(deletes.count == 20 && deletes.allSatisfy { $0.thread == "sdl.sealer" }, "\(Set(deletes.map(\.thread)))")
            let batches = try FileManager.default.contentsOfDirectory(atPath: root + "areas/a0/batches")
            #expect(batches.isEmpty, "flush returned with delivered files still on disk: \(batches)")
            // The journal thread itself never waits for the disk to flush.
            #expect(!flushes.contains { $0.thread == "sdl.outbox" && $0.kind == .syncData })
        }
    }
}
