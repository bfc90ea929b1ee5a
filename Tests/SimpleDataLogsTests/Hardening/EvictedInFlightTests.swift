import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: the caps and a request in flight agree on what was delivered", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct EvictedInFlightTests {
    @Test("a batch evicted by the caps while its request is in flight, then accepted, counts as delivered, not evicted")
    func evictedThenAccepted() async throws {
        try await withDelivery(adjust: {
            $0.batchSize = 1
            $0.limits.outboxFiles = 3
            // The held answer may wait long on a loaded machine (over 30 s of real time under
            // ThreadSanitizer once): URLSession's own backstop, derived from this, must not end
            // the request first, or the ingest has the batch and the client never hears it.
            $0.requestTimeout = .seconds(600)
        }) { delivery in
            // Batch 0's answer is held until the test has seen the caps evict it: no timing (a
            // 500 ms and then a 2 s delay were both outrun by a loaded machine).
            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<1)
            let flushing = Task { await delivery.client.flush() }
            #expect(await delivery.ingest.waitForRequests(count: 1), "batch 0 is on its way; its answer waits")
            delivery.track(1..<5)
            await delivery.test.drain()
            #expect(delivery.client.counters.evictedByCaps >= 1, "five files over a cap of three: the oldest went")
            delivery.ingest.releaseHeldAnswers()
            _ = try await withTimeLimit(waitingFor: "flush() to return once the held answer was released") { await flushing.value }
            for _ in 0..<3 where delivery.client.counters.pending > 0 { await delivery.client.flush() }
            let counters = delivery.client.counters
            #expect(delivery.deliveredSeqs.contains(0), "the ingest has it")
            #expect(counters.delivered == delivery.deliveredSeqs.count, "\(counters)")
            #expect(counters.delivered + counters.evictedByCaps == 5 && counters.isBalanced, "\(counters)")
        }
    }
}
