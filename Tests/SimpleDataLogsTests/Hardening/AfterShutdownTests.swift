import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: calls after shutdown", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct AfterShutdownTests {
    @Test("flush() after shutdown() returns at once instead of waiting forever")
    func flushAfterShutdown() async throws {
        try await withDelivery { delivery in
            delivery.track(0..<3)
            await shutDown(delivery.client)
            let result = try await withTimeLimit(.seconds(30), waitingFor: "flush() after shutdown() to return") { await delivery.client.flush() }
            #expect(result.delivered == 0)
        }
    }

    @Test("a delivery-report subscription made after shutdown is finished at once")
    func reportsAfterShutdown() async throws {
        try await withDelivery { delivery in
            await shutDown(delivery.client)
            let reports = delivery.client.deliveryReports()
            let count = try await withTimeLimit(.seconds(30), waitingFor: "the report stream subscribed after shutdown to finish") {
                var count = 0
                for await _ in reports { count += 1 }
                return count
            }
            #expect(count == 0)
        }
    }
}

@Suite("Hardening: track() after shutdown is logged once and counted", .stuckTestLimit, .tags(.burst), .skippedInFastLoop)
struct TrackAfterShutdownTests {
    @Test("50,000 track() calls after shutdown: one warning line, counted in ignoredAfterShutdown (and in the metric increments), nothing tracked")
    func trackAfterShutdown() async {
        await withTestClient { test in
            test.client.track("before")
            await shutDown(test.client)
            for seq in 0..<50_000 { test.client.track("after", properties: ["seq": .int(Int64(seq))]) }
            let outcome = await test.client.track("after", waitingUpTo: .seconds(1))
            #expect(outcome == .ignoredAfterShutdown)
            let counters = test.client.counters
            #expect(counters.ignoredAfterShutdown == 50_001, "\(counters)")
            #expect(counters.tracked == 1 && counters.isBalanced, "\(counters)")
            let lines = test.log.lines.filter { $0.message.contains("after shutdown()") }
            #expect(lines.count == 1 && lines.first?.level == .warning, "\(lines)")
            let increments = MetricIncrements(from: MetricSnapshot(counters: DeliveryCounters(), requestsAnswered: 0, lastRoundTrip: nil),
                                              to: MetricSnapshot(counters: counters, requestsAnswered: 0, lastRoundTrip: nil))
            #expect(increments.ignoredAfterShutdown == 50_001)
        }
    }
}
