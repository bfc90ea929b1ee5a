import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// The sealed batch files of an outbox, oldest first, as (name, events).
func sealedBatches(in root: String) throws -> [(name: String, events: [JournaledEvent])] {
    let folder = root + "/areas/a0/batches"
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".batch") }.sorted()
    return try names.map { ($0, try JournalReader.events(inFile: folder + "/" + $0)) }
}

@Suite("Outbox: sealing batches", .stuckTestLimit, .skippedInFastLoop)
struct OutboxSealingTests {
    @Test("exactly 50 events seal one batch; the 51st starts the next journal")
    func fiftyEvents() async throws {
        try await withTestClient { test in
            for seq in 0..<50 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            var batches = try sealedBatches(in: test.directory.path)
            #expect(batches.count == 1)
            #expect(try batches.first?.events.map { try $0.requiredInt("seq") } == Array(0..<50))
            test.client.track("e", properties: ["seq": 50])
            await test.drain()
            batches = try sealedBatches(in: test.directory.path)
            #expect(batches.count == 1)
            #expect(try test.journaledEvents().count == 51, "one batch and one open journal")
        }
    }

    @Test("batches are named oldest first, and their ids are stable UUIDs")
    func oldestFirst() async throws {
        try await withTestClient { test in
            for seq in 0..<175 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            let batches = try sealedBatches(in: test.directory.path)
            #expect(batches.count == 3)
            #expect(try batches.flatMap { try $0.events.map { try $0.requiredInt("seq") } } == Array(0..<150))
            for batch in batches {
                let parts = try #require(JournalName.batchParts(batch.name))
                #expect(UUID(uuidString: parts.id) != nil && parts.path == "r")
            }
            let stored = await test.client.pipeline!.outbox.sealedBatches
            #expect(stored.map(\.fileName) == batches.map(\.name))
        }
    }

    @Test("the event that would take a request over 256 KiB starts the next batch")
    func bodySizeBoundary() async throws {
        try await withTestClient { test in
            let filler = String(repeating: "x", count: 8_000)
            for seq in 0..<40 { test.client.track("big", properties: ["seq": .int(Int64(seq)), "a": .string(filler), "b": .string(filler), "c": .string(filler)]) }
            await test.drain()
            let journal = test.client.pipeline!.outbox
            let stored = await journal.sealedBatches
            try #require(stored.count >= 3)
            let folder = test.directory.path + "/areas/a0/batches/"
            for batch in stored {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + batch.fileName)))
                let contents = BatchFile.decode(bytes)
                let body = SealedBatch(id: batch.id, sequence: 0, path: "r", payloads: contents.payloads).bodyBytes
                #expect(body <= EventLimits.maxBodyBytes, "each request fits")
                let next = try #require(contents.payloads.first?.count)
                #expect(body + next + 1 > EventLimits.maxBodyBytes, "and one more event would not have fitted")
            }
            #expect(try test.journaledEvents().map { try $0.requiredInt("seq") } == Array(0..<40))
        }
    }

    @Test("a partial batch seals 5 seconds after its first event in debug builds (10 in release), on the injected clock")
    func sealTimer() async throws {
        #expect(SealPolicy.debugMaxAge == .seconds(5) && SealPolicy.releaseMaxAge == .seconds(10))
        #if DEBUG
        #expect(SealPolicy.defaultMaxAge == .seconds(5))
        #endif
        try await withTestClient { test in
            let journal = test.client.pipeline!.outbox
            test.client.track("first")
            await test.drain()
            try #require(await test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            test.client.track("second")
            await test.drain()
            test.clock.advance(by: .milliseconds(4_999))
            await test.drain()
            #expect(await journal.sealedBatches.isEmpty, "not yet")
            test.clock.advance(by: .milliseconds(1))
            try await withTimeLimit(waitingFor: "the partial batch to seal at 5 s") { await journal.waitUntilSealed(atLeast: 1) }
            let batches = try sealedBatches(in: test.directory.path)
            #expect(batches.count == 1 && batches[0].events.map { $0.name } == ["first", "second"])
        }
    }

    @Test("a full batch cancels its timer; the next partial batch gets a timer of its own")
    func timerPerBatch() async throws {
        var tuning = ClientTuning()
        tuning.sealPolicy = SealPolicy(maxEvents: 3, maxAge: .seconds(10))
        try await withTestClient(tuning: tuning) { test in
            let journal = test.client.pipeline!.outbox
            for _ in 0..<4 { test.client.track("e") }
            await test.drain()
            #expect(await journal.sealedBatches.count == 1)
            try #require(await test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            test.clock.advance(by: .seconds(10))
            try await withTimeLimit(waitingFor: "the second, partial batch to seal on its own timer") { await journal.waitUntilSealed(atLeast: 2) }
            #expect(await journal.sealedBatches.map(\.eventCount) == [3, 1])
        }
    }

    @Test("the journal thread never waits for a flush: while the sealer sits in fdatasync, the next batches are written; released, they are sealed in order")
    func journalWritesWhileTheSealerFlushes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = FaultInjectingFileSystem()
        files.syncGate.close()
        let outbox = SealedOutbox(directory: directory, files: files)
        let journal = outbox.journal
        // Three full batches, one chunk each; the first flush is held in fdatasync.
        for range in [0..<50, 50..<100, 100..<150] { outbox.input.push(SealedOutbox.chunk(range)) }
        let written = try await onOwnThread { journal.blockUntilWatermark(atLeast: 150, timeout: .after(.seconds(60))) }
        #expect(written, "all 150 events reached the journal files while the sealer was held")
        let held = try await onOwnThread { files.syncGate.blockUntilSomeoneIsHeld(timeout: .after(.seconds(60))) }
        #expect(held && files.syncGate.arrivals == 1, "the sealer is inside its first fdatasync, and only there")
        #expect(await journal.sealedBatches.isEmpty, "nothing is queued for the uploader before it is durable")
        let area = directory.path + "/areas/a0"
        let journals = try FileManager.default.contentsOfDirectory(atPath: area).filter { $0.hasPrefix("journal-") }
        #expect(journals.count == 3, "three journals on disk, each whole: \(journals)")
        // Released: the first flush ends; the other two journals were handed over meanwhile and
        // are synced as one group.
        files.syncGate.open()
        try await outbox.barrier()
        #expect(await journal.sealedBatches.map(\.eventCount) == [50, 50, 50])
        let synced = files.flushes.filter { $0.kind == .syncData }.map { ($0.path as NSString).lastPathComponent }
        #expect(synced.count == 3 && Set(synced) == Set(journals), "each journal fdatasync'ed once: \(synced)")
        let flushKinds: [FaultInjectingFileSystem.Flush.Kind] = [.fsync, .startWriteback, .syncData, .driveCache]
        #expect(files.flushes.filter { flushKinds.contains($0.kind) }.allSatisfy { $0.path.hasPrefix(area) }, "only the area's own files and folder are flushed")
        try await outbox.finish()
        let batches = try sealedBatches(in: directory.path)
        #expect(batches.flatMap(\.events).map { $0.int("seq") } == (0..<150).map { $0 })
    }

    @Test("back-pressure: while the sealer is held, the journal stops once 4 MiB of events wait for their seals, instead of holding ever more; released, all are sealed", .tags(.burst))
    func journalWaitsForASlowSealer() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = FaultInjectingFileSystem()
        files.syncGate.close()
        let outbox = SealedOutbox(directory: directory, files: files, caps: OutboxCaps(maxEvents: 100_000, maxBytes: 1 << 30, maxFiles: 10_000))
        let journal = outbox.journal
        // 200 events of about 60 KB: four to a batch (the 256 KiB body limit), 12 MB in all.
        let padding = PropertyValue.string(String(repeating: "p", count: 60_000))
        for seq in 0..<200 { outbox.input.push(SealedOutbox.chunk(seq..<(seq + 1), extra: ["pad": padding])) }
        let held = try await onOwnThread { files.syncGate.blockUntilSomeoneIsHeld(timeout: .after(.seconds(60))) }
        #expect(held, "the sealer is inside its first fdatasync")
        // The journal goes on until about 4 MiB (some 70 events) wait for their seals, then waits
        // itself: it gets there, and never past 120 of the 200 offered, however long the sealer
        // is held (without the bound, all 200 are written within milliseconds).
        let reached = try await onOwnThread { journal.blockUntilWatermark(atLeast: 60, timeout: .after(.seconds(60))) }
        let passed = try await onOwnThread { journal.blockUntilWatermark(atLeast: 121, timeout: .after(.seconds(1))) }
        #expect(reached && !passed, "written \(journal.watermark.eventsWritten) of 200 while the sealer was held")
        files.syncGate.open()
        try await outbox.barrier()
        #expect(journal.watermark.eventsWritten == 200)
        await journal.sealOpenBatch()
        #expect(await journal.sealedBatches.reduce(0) { $0 + $1.eventCount } == 200)
        try await outbox.finish()
    }

    @Test("folders are 0700 and files 0600")
    func permissions() async throws {
        try await withTestClient { test throws in
            for _ in 0..<60 { test.client.track("e") }
            await test.drain()
            func mode(_ path: String) throws -> Int {
                (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
            }
            let root = test.directory.path
            for folder in ["", "/areas", "/areas/a0", "/areas/a0/batches", "/areas/a0/set-aside", "/areas/a0/tmp", "/quarantine"] {
                #expect(try mode(root + folder) == 0o700, "\(folder)")
            }
            for file in JournalReader.files(under: root) {
                #expect(try mode(root + "/" + file) == 0o600, "\(file)")
            }
        }
    }

    @Test("every descriptor the outbox holds is close-on-exec")
    func closeOnExec() async throws {
        try await withTestClient { test in
            test.client.track("e")
            await test.drain()
            var checked = 0
            for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                guard let descriptor = Int32(name),
                      let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                      target.hasPrefix(test.directory.path) else { continue }
                #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "\(target)")
                checked += 1
            }
            #expect(checked >= 2, "the lock and the journal")
        }
    }
}
