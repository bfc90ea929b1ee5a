import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Metrics: the round trip of the latest answer, on the client's clock, against a real ingest", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct MetricRoundTripTests {
    @Test("an answer held while the client's clock moves 250 ms: the next snapshot has one request answered, in 250 ms")
    func heldAnswer() async throws {
        // URLSession's real-time backstop (from requestTimeout) must not end the held request.
        try await withDelivery(adjust: { $0.requestTimeout = .seconds(600) }) { delivery in
            let clock = delivery.test.clock
            let snapshots = delivery.client.metricSnapshots(every: .seconds(10))
            let first = try #require(try await nextElement(of: snapshots, waitingFor: "the first snapshot"))
            #expect(first.requestsAnswered == 0 && first.lastRoundTrip == nil)

            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<10)
            let flushing = Task { await delivery.client.flush() }
            #expect(await delivery.ingest.waitForRequests(count: 1), "the batch is on its way; its answer waits")
            // Short of the snapshots' 10 s interval: the polling task sleeps on.
            clock.advance(by: .milliseconds(250))
            delivery.ingest.releaseHeldAnswers()
            _ = try await withTimeLimit(waitingFor: "the flush to end once the answer is released") { await flushing.value }

            // Flushed and answered: no request deadline or seal timer is left, only the poller.
            try await tick(clock, by: .seconds(10))
            let answered = try #require(try await nextElement(of: snapshots, waitingFor: "the snapshot after the answer"))
            #expect(answered.requestsAnswered == 1 && answered.lastRoundTrip == .milliseconds(250), "\(answered)")
            #expect(answered.counters.delivered == 10)
            #expect(answered.increments(since: first).requestsAnswered == 1)
        }
    }

    @Test("a request that gets no answer is not a round trip: a refused connection leaves the snapshot's answers alone")
    func noAnswer() async throws {
        try await withDelivery { delivery in
            // Nothing listens any more: the connection is refused, so no answer comes.
            delivery.ingest.stop()
            delivery.track(0..<5)
            await delivery.client.flush()
            let snapshots = delivery.client.metricSnapshots(every: .seconds(10))
            let now = try #require(try await nextElement(of: snapshots, waitingFor: "the snapshot after the failed try"))
            #expect(now.requestsAnswered == 0 && now.lastRoundTrip == nil, "\(now)")
            #expect(now.counters.delivered == 0 && now.pendingOnDisk == 5)
        }
    }
}
