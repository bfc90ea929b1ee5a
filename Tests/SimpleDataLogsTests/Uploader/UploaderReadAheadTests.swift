import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Uploader: requests kept in flight, the next batches read meanwhile", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct UploaderReadAheadTests {
    @Test("with the first round's answers held, the next round's batch files are read meanwhile, by the uploader, not the outbox's load; released, every event arrives once")
    func readsTheNextRoundDuringTheFlight() async throws {
        let files = FaultInjectingFileSystem()
        // URLSession's real-time backstop (from requestTimeout, 30 s) must not end the held
        // requests while a slow run (ThreadSanitizer) waits for the reads.
        try await withDelivery(faults: files.injection, adjust: { $0.maxConcurrentRequests = 2; $0.requestTimeout = .seconds(600) }) { delivery in
            // Two requests in flight at a time: the answers to the first two are held, and the
            // next two batches are queued behind them.
            delivery.ingest.script([.heldUntilReleased, .heldUntilReleased])
            // The four batches are sealed while the client is offline, so they reach the
            // uploader together and its first round can see the second. (A writer held while
            // tracking left this to timing: under load the stages handed the outbox a first
            // chunk of 50 or more, whose batch went out alone before the others were sealed.)
            delivery.client.setOffline(true)
            delivery.track(0..<200)
            _ = try await withTimeLimit(waitingFor: "the offline flush that seals the four batches") { await delivery.client.flush() }
            #expect(delivery.ingest.requests.isEmpty, "offline: nothing sent yet")
            delivery.client.setOffline(false)
            let flushing = Task { await delivery.client.flush() }
            #expect(await delivery.ingest.waitForRequests(count: 2), "the first round is on its way; its answers wait")
            let batches = await delivery.client.pipeline!.outbox.sealedBatches.map(\.fileName)
            #expect(batches.count == 4)
            // Read ahead while the first round waits (a bounded wait on the record of reads).
            let later = Array(batches.dropFirst(2))
            let readEarly = try await onOwnThread {
                files.blockUntil(timeout: .after(.seconds(60))) { record in
                    later.allSatisfy { name in record.contains { $0.kind == .read && $0.path.hasSuffix(name) && $0.thread != "sdl.outbox" } }
                }
            }
            #expect(readEarly, "batches 3 and 4 were read during the first round, not by the outbox's load")
            #expect(delivery.ingest.requests.count == 2, "and not sent before a place in flight was free")
            delivery.ingest.releaseHeldAnswers()
            _ = try await withTimeLimit(waitingFor: "the flush to end once the held answers are released") { await flushing.value }
            #expect(delivery.deliveredSeqs == Array(0..<200))
            let reads = files.flushes.filter { $0.kind == .read && $0.path.hasSuffix(".batch") }
            #expect(Set(batches.dropFirst(2)).allSatisfy { name in reads.filter { $0.path.hasSuffix(name) }.count == 1 }, "each read once: the read-ahead copy was the one sent")
        }
    }

    @Test("a sliding window: with one answer held, the other place in flight keeps sending; the held batch is still delivered once")
    func slidingWindow() async throws {
        let gate = WriterGate(isOpen: false)
        var faults = FaultInjection()
        faults.writerGate = gate
        try await withDelivery(faults: faults, adjust: { $0.maxConcurrentRequests = 2; $0.requestTimeout = .seconds(600) }) { delivery in
            // The first request's answer is held; the rest are answered at once.
            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<200)
            gate.open()
            let flushing = Task { await delivery.client.flush() }
            // In rounds, the third request waited for the held first one; in a window, the
            // second place goes on: batches 2, 3 and 4 reach the ingest while 1 waits.
            #expect(await delivery.ingest.waitForRequests(count: 4), "four requests while the first answer is held")
            #expect(delivery.ingest.receivedEvents.count == 200, "all four batches reached the ingest (the held one is counted, its answer waits)")
            delivery.ingest.releaseHeldAnswers()
            _ = try await withTimeLimit(waitingFor: "the flush to end once the held answer is released") { await flushing.value }
            #expect(delivery.deliveredSeqs == Array(0..<200))
            #expect(delivery.client.counters.delivered == 200 && delivery.client.counters.isBalanced)
        }
    }

    @Test("a batch sealed while the only request in flight waits for its answer leaves at once through the free place, not after that answer")
    func freePlaceTakesANewBatchDuringASlowAnswer() async throws {
        try await withDelivery(adjust: { $0.maxConcurrentRequests = 2; $0.requestTimeout = .seconds(600) }) { delivery in
            // The first request's answer is held, as a slow edge holds it.
            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<50)
            #expect(await delivery.ingest.waitForRequests(count: 1), "the first batch is sent; its answer waits")
            // Sealed now (its 50th event), while the pass waits for that answer with a place free.
            delivery.track(50..<100)
            // Before, the pass took new batches only between answers: this one waited for the
            // held answer, however long, while the second place stood idle.
            #expect(await delivery.ingest.waitForRequests(count: 2), "the second batch left while the first answer was held")
            #expect(delivery.ingest.receivedEvents.count == 100)
            delivery.ingest.releaseHeldAnswers()
            _ = try await withTimeLimit(waitingFor: "the flush to end once the held answer is released") { await delivery.client.flush() }
            #expect(delivery.deliveredSeqs == Array(0..<100))
            #expect(delivery.client.counters.delivered == 100 && delivery.client.counters.isBalanced)
        }
    }
}
