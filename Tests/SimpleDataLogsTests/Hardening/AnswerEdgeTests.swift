import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23's smaller uploader items, end to end against a real local ingest: a flush under a
/// `Retry-After`, a 202 whose `Content-Encoding` lies, and going back online with an open batch.
@Suite("Hardening: a flush under Retry-After, a 202 with a lying Content-Encoding, back online at once", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct AnswerEdgeTests {
    @Test("flush() respects a 429's Retry-After: no request before the time the ingest asked for; then everything goes")
    func flushRespectsRetryAfter() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.status(429, retryAfter: "120")])
            delivery.track(0..<3)
            let first = try await withTimeLimit(waitingFor: "the first flush") { [client = delivery.client] in await client.flush() }
            #expect(first.delivered == 0 && delivery.ingest.summary.requests == 1)
            let second = try await withTimeLimit(waitingFor: "a flush under Retry-After") { [client = delivery.client] in await client.flush() }
            #expect(delivery.ingest.summary.requests == 1, "the ingest asked for 120 s; a flush does not break that")
            #expect(second.delivered == 0 && second.remaining == 3)
            // The wait the ingest asked for runs out on the client's clock: the batch goes.
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the Retry-After timer")
            delivery.test.clock.advance(by: .seconds(120))
            #expect(await delivery.ingest.waitForEvents(count: 3))
        }
    }

    @Test("a 202 whose Content-Encoding says gzip over a plain body is delivery: counted once, logged once, never resent")
    func mislabeledAcceptedAnswer() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.mislabeledAnswerEncoding])
            delivery.track(0..<3)
            let flushed = try await withTimeLimit(waitingFor: "a flush answered with a lying Content-Encoding") { [client = delivery.client] in await client.flush() }
            #expect(flushed.delivered == 3 && flushed.remaining == 0, "\(flushed)")
            _ = try await withTimeLimit(waitingFor: "a second flush") { [client = delivery.client] in await client.flush() }
            #expect(delivery.ingest.summary.requests == 1, "the accepted batch is not sent again")
            #expect(delivery.client.counters.delivered == 3 && delivery.client.counters.isBalanced, "\(delivery.client.counters)")
            #expect(delivery.test.log.lines(containing: "could not be read").count == 1)
        }
    }

    @Test("back online, the open batch is sealed and sent at once, without waiting for its timer")
    func onlineSendsOpenBatchAtOnce() async throws {
        try await withDelivery { delivery in
            delivery.client.setOffline(true)
            delivery.track(0..<5)
            await delivery.test.drain()  // journaled, in the open batch; its timer runs on the manual clock, never moved
            delivery.client.setOffline(false)
            #expect(await delivery.ingest.waitForEvents(count: 5, timeout: .seconds(20)), "sent at once, as the docs say")
        }
    }
}
