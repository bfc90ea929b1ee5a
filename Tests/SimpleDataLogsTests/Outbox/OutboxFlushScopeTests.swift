import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Outbox: what its flushes and deletes touch, and on which thread", .stuckTestLimit, .tags(.sockets, .burst), .skippedInFastLoop)
struct OutboxFlushScopeTests {
    @Test("a client delivering 1,000 events flushes only its own files and folders, one file at a time, and syncs and retires files off the journal's thread")
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
            // (The area lock's pid is rewritten through a descriptor the seam knows as "lock".)
            let outside = flushes.filter { !$0.path.hasPrefix(root) && !($0.kind == .truncate && $0.path == "lock") }
            #expect(outside.isEmpty, "flushed or deleted outside the outbox: \(outside.prefix(3))")
            // The 20 journals of 50 events: each made durable by its own fdatasync, on the sealer.
            let dataSyncs = flushes.filter { $0.kind == .syncData }
            #expect(dataSyncs.count == 20 && Set(dataSyncs.map(\.path)).count == 20)
            #expect(dataSyncs.allSatisfy { $0.path.contains("/journal-") })
            // Off the journal thread. (The sealer's own name is not asserted: under ThreadSanitizer
            // an executor's thread sometimes keeps the name of the pool thread that created it,
            // though every call runs on it; probed with `pthread_self()`.)
            #expect(!dataSyncs.contains { $0.thread == "sdl.outbox" }, "\(Set(dataSyncs.map(\.thread)))")
            // The delivered batches' files leave batches/ on the sealer's thread too, and are gone
            // when flush returns: deleted, or emptied first and kept in tmp/ as spare journals.
            let retired = flushes.filter { ($0.kind == .remove || $0.kind == .rename) && $0.path.hasSuffix(".batch") && !$0.path.contains("/journal-") }
                .filter { $0.kind == .remove || $0.destination?.contains("/tmp/spare-") == true }
            #expect(retired.count == 20 && !retired.contains { $0.thread == "sdl.outbox" }, "\(retired.count) on \(Set(retired.map(\.thread)))")
            for spare in retired where spare.kind == .rename {
                #expect(flushes.contains { $0.kind == .truncate && $0.path == spare.path }, "emptied before it became a spare: \(spare.path)")
            }
            let batches = try FileManager.default.contentsOfDirectory(atPath: root + "areas/a0/batches")
            #expect(batches.isEmpty, "flush returned with delivered files still on disk: \(batches)")
        }
    }
}

@Suite("Outbox: retired batch files become the next journals", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct OutboxSpareJournalTests {
    @Test("delivered files are emptied into spares that later journals are made from; a restart deletes the leftover spares, and every event arrives once")
    func sparesBecomeJournals() async throws {
        let files = FaultInjectingFileSystem()
        let directory = TemporaryDirectory()
        try await withDelivery(directory: directory, faults: files.injection) { delivery in
            delivery.track(0..<500)
            _ = await delivery.client.flush()
            delivery.track(500..<1_000)
            _ = await delivery.client.flush()
            #expect(delivery.deliveredSeqs == Array(0..<1_000))
            let reused = files.flushes.filter { $0.kind == .rename && $0.path.contains("/tmp/spare-") && $0.destination?.contains("/journal-") == true }
            #expect(!reused.isEmpty, "journals of the second 500 made from spares")
            let tmp = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0/tmp")
            #expect(tmp.allSatisfy { $0.hasPrefix("spare-") }, "\(tmp)")
            for name in tmp {
                let size = try FileManager.default.attributesOfItem(atPath: directory.path + "/areas/a0/tmp/" + name)[.size] as? Int
                #expect(size == 0, "a spare never holds events: \(name) has \(size ?? -1) bytes")
            }
        }
        // The next launch on the folder: spares are temporary files, deleted by recovery; nothing
        // is sent again.
        try await withDelivery(directory: directory) { restarted in
            _ = await restarted.client.flush()
            #expect(restarted.ingest.receivedEvents.isEmpty, "nothing was left to send")
            let tmp = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0/tmp")
            #expect(tmp.isEmpty, "\(tmp)")
        }
    }
}
