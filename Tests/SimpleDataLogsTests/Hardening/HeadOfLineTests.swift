import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: one failing batch does not hold back the queue", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct HeadOfLineTests {
    @Test("a batch that fails three times in a row is tried after the others: the batches behind it are delivered while it keeps failing")
    func poisonBatchDemoted() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script(Array(repeating: .status(500), count: 3) + [.normal(), .normal()] + Array(repeating: .status(500), count: 10))
            delivery.track(0..<150)
            await delivery.test.drain()
            // The oldest batch meets the three 500s (a flush ignores the backoff; at most 3 flushes).
            for _ in 0..<3 where delivery.ingest.summary.requests < 3 { await delivery.client.flush() }
            #expect(delivery.ingest.summary.requests == 3)
            await delivery.client.flush()
            #expect(delivery.deliveredSeqs == Array(50..<150), "the two batches behind it went first")
            #expect(delivery.client.counters.pendingOnDisk == 50, "it is kept, and still retried")
            #expect(delivery.test.log.lines.contains { $0.message.contains("failed 3 times in a row") })
        }
    }

    @Test("a 2xx other than 202 is not delivery: the batch is kept and the log asks whether the endpoint is the ingest")
    func okIsNotAccepted() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.status(200)])
            delivery.track(0..<3)
            await delivery.test.drain()
            _ = await delivery.client.flush()
            #expect(delivery.test.log.lines.contains { $0.message.contains("HTTP 200, not 202") })
            for _ in 0..<2 where delivery.client.counters.delivered < 3 { await delivery.client.flush() }
            #expect(delivery.deliveredSeqs == [0, 1, 2])
        }
    }
}
