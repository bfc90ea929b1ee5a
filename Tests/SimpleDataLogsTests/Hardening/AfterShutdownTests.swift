import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: calls after shutdown", .stuckTestLimit)
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
