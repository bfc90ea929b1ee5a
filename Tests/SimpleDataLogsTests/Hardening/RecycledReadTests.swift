import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 24, item 1: the uploader reads a sealed batch's file while the caps evict that batch,
/// the sealer empties its file into a spare journal (truncate, rename into `tmp/`), and the
/// journal thread makes the spare its next journal and writes to it. A read that opened the file
/// before all that reads the inode afterwards: empty, or another batch's records. Nothing sent
/// may differ from what was sealed under the id it is sent as.
@Suite("Hardening: a batch file recycled under a read is never sent under the evicted batch's id", .stuckTestLimit)
struct RecycledReadTests {
    /// Seals batches 0 and 1 while offline (so their names are known before the uploader's first
    /// pass), then goes online with the ingest holding its answers: batch 0 goes, and the
    /// uploader's read of batch 1's file is held open until `readHeld` opens.
    /// - Returns: The two sealed batches, oldest first.
    static func holdReadOfBatchOne(
        _ delivery: Delivery, outbox: OutboxActor, files: FaultInjectingFileSystem, until readHeld: ThreadGate
    ) async throws -> [StoredBatch] {
        delivery.client.setOffline(true)
        delivery.track(0..<2)
        await delivery.test.drain()
        await outbox.waitUntilSealed(atLeast: 2)
        let sealed = await outbox.sealedBatches
        try #require(sealed.count == 2)
        let second = sealed[1].fileName
        files.holdRead(ofPathContaining: second, until: readHeld)
        delivery.ingest.script([.heldUntilReleased])
        delivery.client.setOffline(false)
        let opened = try await onOwnThread {
            files.blockUntil(timeout: .after(.seconds(60))) { record in
                record.contains { $0.kind == .read && $0.path.hasSuffix(second) && $0.thread != "sdl.outbox" }
            }
        }
        // (The held read holds the uploader's thread, where its requests start too: batch 0's
        // request may leave only once the read is let go.)
        try #require(opened, "batch 1's file is open for reading, off the journal's thread; the read is held")
        return sealed
    }

    @Test("a read-ahead held open across eviction, recycling and the spare's reuse as a journal: nothing sent differs from what was sealed under its id, and no evicted event counts as delivered")
    func readAcrossRecycling() async throws {
        let files = FaultInjectingFileSystem()
        try await withDelivery(faults: files.injection, adjust: {
            $0.batchSize = 1
            $0.maxConcurrentRequests = 1
            $0.limits.outboxFiles = 3
            // The held answer may wait long on a loaded machine: URLSession's own backstop must
            // not end it first.
            $0.requestTimeout = .seconds(600)
        }) { delivery in
            let outbox = try #require(delivery.client.pipeline?.outbox)
            let readHeld = ThreadGate(isOpen: false)
            let sealed = try await Self.holdReadOfBatchOne(delivery, outbox: outbox, files: files, until: readHeld)
            let second = sealed[1].fileName

            // The caps (3 files) evict batches 0 and 1; the sealer empties batch 1's file and
            // moves it into tmp/ as a spare.
            delivery.track(2..<5)
            await delivery.test.drain()
            let recycled = try await onOwnThread {
                files.blockUntil(timeout: .after(.seconds(60))) { record in
                    record.contains { $0.kind == .truncate && $0.path.hasSuffix(second) }
                        && record.contains { $0.kind == .rename && $0.path.hasSuffix(second) && $0.destination?.contains("/tmp/spare-") == true }
                }
            }
            try #require(recycled, "batch 1 was evicted and its file recycled as a spare while the read was open")
            let spare = try #require(files.flushes.first { $0.kind == .rename && $0.path.hasSuffix(second) }?.destination)
            // The journal thread takes the newest spare as its next journal and writes new events
            // to it: batch 1's, unless a later eviction made a newer one first.
            var next = 5
            while !files.flushes.contains(where: { $0.kind == .rename && $0.path == spare }), next < 12 {
                delivery.track(next..<(next + 1))
                await delivery.test.drain()
                next += 1
            }

            // The read now sees what the inode holds: not batch 1.
            readHeld.open()
            let heldRead = try await onOwnThread { () -> [UInt8]? in
                _ = files.blockUntil(timeout: .after(.seconds(60))) { record in record.contains { $0.kind == .heldReadReturned } }
                return files.heldReadResults.first
            }
            // The interleaving happened: the bytes the reader got are not batch 1's (another
            // batch's records, when the spare became a journal; else nothing).
            let read = BatchFile.decode(try #require(heldRead, "the held read returned"))
            #expect(read.payloads.count != 1 || !String(decoding: read.payloads[0], as: UTF8.self).contains(#""seq":1}"#), "the held read saw the recycled inode")
            #expect(await delivery.ingest.waitForRequests(count: 1), "batch 0 is on its way; its answer waits")
            delivery.ingest.releaseHeldAnswers()
            for _ in 0..<4 where delivery.client.counters.pending > 0 { await delivery.client.flush() }

            // Nothing sent under an id differs from what was sealed under it: batch k holds event k.
            let sentUnder = Self.seqsByBatch(delivery.ingest.requests)
            #expect(sentUnder[EventEncoder.lowercaseString(sealed[1].id)].map { $0 == [[1]] } ?? true, "batch 1 went as sealed, or not at all: \(sentUnder)")
            for (id, contents) in sentUnder {
                #expect(Set(contents).count == 1 && contents.allSatisfy { $0.count == 1 }, "batch \(id) went with one event each time: \(contents)")
            }
            let counters = delivery.client.counters
            #expect(counters.delivered == delivery.deliveredSeqs.count, "only events the ingest has count as delivered: \(counters)")
            #expect(counters.delivered + counters.evictedByCaps == next && counters.isBalanced, "\(counters)")
        }
    }

    @Test("the same race inside one operation of the journal thread (the caps evict at a barrier, the sealer empties the file into a spare at the next, the spare is about to become the next journal), with the eviction not yet posted to the uploader: the bytes read are not sent under the evicted batch's id")
    func readAcrossRecyclingWithinOneOperation() async throws {
        let files = FaultInjectingFileSystem()
        let stagesHeld = ThreadGate(isOpen: false)
        // Event 2 holds the stages, so that events 3 to 6 and two barriers reach the journal
        // thread as one chunk, handled in one operation.
        let holdAtTwo = EventMiddleware("hold at event 2") { event in
            if event.properties["seq"] == .int(2) { stagesHeld.blockWhileClosed() }
            return .keep
        }
        try await withDelivery(faults: files.injection, adjust: {
            $0.batchSize = 1
            $0.maxConcurrentRequests = 1
            $0.limits.outboxFiles = 3
            $0.requestTimeout = .seconds(600)
            $0.middleware = [holdAtTwo]
        }) { delivery in
            let readHeld = ThreadGate(isOpen: false)
            let journalHeld = ThreadGate(isOpen: false)
            // However the test ends, nothing stays held (the teardown's shutdown needs the threads).
            defer {
                stagesHeld.open()
                readHeld.open()
                journalHeld.open()
            }
            let outbox = try #require(delivery.client.pipeline?.outbox)
            let sealed = try await Self.holdReadOfBatchOne(delivery, outbox: outbox, files: files, until: readHeld)
            let second = sealed[1].fileName

            delivery.track(2..<3)
            let stagesStopped = try await onOwnThread { stagesHeld.blockUntilSomeoneIsHeld(timeout: .after(.seconds(60))) }
            try #require(stagesStopped)
            delivery.track(3..<5)
            // At the first barrier the caps evict batches 0 and 1 (five files, a cap of three)
            // and hand their files to the sealer; the second waits for the sealer, which has
            // emptied them into spares by then; event 5 takes one as its journal, and the journal
            // thread is held right there, in the same operation, before it posts the eviction.
            delivery.client.intake.enqueue(.barrier(Barrier()))
            delivery.client.intake.enqueue(.barrier(Barrier()))
            delivery.track(5..<7)
            // The journal thread is held as it opens its next journal once batch 1's file is
            // emptied and moved into tmp/ (from a spare, recycled or fresh, or a new file: which
            // one is the sealer's to decide; the hold is what the test needs: the eviction not
            // yet posted).
            let batchOneRecycled: @Sendable ([FaultInjectingFileSystem.Flush]) -> Bool = { record in
                record.contains { $0.kind == .truncate && $0.path.hasSuffix(second) }
                    // Its move into tmp/ comes after the truncation returned (a call is
                    // recorded as it starts).
                    && record.contains { $0.kind == .rename && $0.path.hasSuffix(second) && ($0.destination ?? "").contains("/tmp/spare-") }
            }
            // Only the journal thread opens journals (by path; not by thread name: under
            // ThreadSanitizer the names read back differ).
            files.holdOpen(where: { path, _, record in
                path.contains("/journal-") && batchOneRecycled(record)
            }, until: journalHeld)
            stagesHeld.open()
            let inOperation = try await onOwnThread {
                journalHeld.blockUntilSomeoneIsHeld(timeout: .after(.seconds(60))) && batchOneRecycled(files.flushes)
            }
            try #require(inOperation, "batch 1's file was recycled and the journal thread is held at its next journal: \(files.flushes.filter { $0.kind == .rename || $0.kind == .truncate })")

            readHeld.open()
            let heldRead = try await onOwnThread { () -> [UInt8]? in
                _ = files.blockUntil(timeout: .after(.seconds(60))) { record in record.contains { $0.kind == .heldReadReturned } }
                return files.heldReadResults.first
            }
            let read = BatchFile.decode(try #require(heldRead, "the held read returned"))
            #expect(read.payloads.isEmpty, "the held read saw the emptied inode: \(read.headerIDs)")
            #expect(await delivery.ingest.waitForRequests(count: 1), "batch 0 is on its way; its answer waits")
            delivery.ingest.releaseHeldAnswers()
            // With batch 0 answered, the uploader goes on while the journal thread is still held:
            // it sends batch 1 (from what it read) or reads batch 1 again (the copy read did not
            // hold batch 1). Before issue 24 it waited for the journal thread to hear the answer,
            // so neither happened here, and this bounded wait ran out: the finding, see the report.
            let uploaderWentOn = await withTaskGroup(of: Bool.self) { group in
                group.addTask { await delivery.ingest.waitForRequests(count: 2, timeout: .seconds(30)) }
                group.addTask {
                    (try? await onOwnThread {
                        files.blockUntil(timeout: .after(.seconds(30))) { record in
                            record.filter { $0.kind == .read && $0.path.hasSuffix(second) && $0.thread != "sdl.outbox" }.count >= 2
                        }
                    }) ?? false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(uploaderWentOn, "the uploader went on with the journal thread held")
            journalHeld.open()
            for _ in 0..<4 where delivery.client.counters.pending > 0 { await delivery.client.flush() }

            let sentUnder = Self.seqsByBatch(delivery.ingest.requests)
            #expect(sentUnder[EventEncoder.lowercaseString(sealed[1].id)].map { $0 == [[1]] } ?? true, "batch 1 went as sealed, or not at all: \(sentUnder)")
            for (id, contents) in sentUnder {
                #expect(Set(contents).count == 1 && contents.allSatisfy { $0.count == 1 }, "batch \(id) went with one event each time: \(contents)")
            }
            let seqs = sentUnder.values.compactMap { $0.first?.first }
            #expect(seqs.count == Set(seqs).count, "no event went under two ids: \(sentUnder)")
            let counters = delivery.client.counters
            #expect(counters.delivered == delivery.deliveredSeqs.count, "only events the ingest has count as delivered: \(counters)")
            #expect(counters.delivered + counters.evictedByCaps == 7 && counters.isBalanced, "\(counters)")
        }
    }

    @Test("a batch file whose header names another batch (a copy left in the folder) is never sent under its own name's id: launch finds its events already queued in the original, deletes it, says so in one line; each event goes once")
    func copiedFileNotSentUnderItsName() async throws {
        let directory = TemporaryDirectory()
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        // A first run, offline, seals two batches and leaves them for the next (same key and
        // endpoint, so it adopts them).
        let first = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: { $0.batchSize = 1 })
        first.client.setOffline(true)
        for seq in 0..<2 { first.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await first.drain()
        await shutDown(first.client)
        let batches = directory.path + "/areas/a0/batches"
        let names = try FileManager.default.contentsOfDirectory(atPath: batches).filter { $0.hasSuffix(".batch") }.sorted()
        try #require(names.count == 2)
        // Batch 0's bytes under a new name: a new id, the next sequence.
        let copy = JournalName.batch(sequence: 999, path: "r", id: EventEncoder.lowercaseString(UUID()))
        try FileManager.default.copyItem(atPath: batches + "/" + names[0], toPath: batches + "/" + copy)

        let second = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: { $0.batchSize = 1 })
        await second.client.flush()
        let copyID = try #require(JournalName.batchParts(copy)?.id)
        #expect(!ingest.requests.contains { $0.batchID?.lowercased() == copyID }, "nothing went under the copy's id")
        let seqs = ingest.rawEvents.compactMap { if case .int(let seq)? = $0.properties["seq"] { Int(seq) } else { nil } }.sorted()
        #expect(seqs == [0, 1], "each event once, under its own batch's id: no event went under two ids")
        #expect(second.client.stageCounters.mismatchedReads == 0, "launch dealt with it: no read was refused")
        #expect(second.log.lines(containing: "did not hold the batch its name gives").count == 1, "one line")
        #expect(second.log.lines(containing: "1 were already queued in another file").count == 1, "\(second.log.lines.map(\.message))")
        #expect(!FileManager.default.fileExists(atPath: batches + "/" + copy), "deleted: its one event is in the original")
        await second.tearDown()
    }

    /// The `seq`s of each request's events, by its `SDL-Batch-ID`, one list per request.
    static func seqsByBatch(_ requests: [RecordedRequest]) -> [String: [[Int]]] {
        var result: [String: [[Int]]] = [:]
        for request in requests {
            guard let id = request.batchID?.lowercased() else { continue }
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            let events = object?["events"] as? [[String: Any]] ?? []
            let seqs = events.compactMap { ($0["props"] as? [String: Any])?["seq"] as? Int }
            result[id, default: []].append(seqs)
        }
        return result
    }
}
