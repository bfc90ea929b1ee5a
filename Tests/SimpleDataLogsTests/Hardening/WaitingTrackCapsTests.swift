import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23, item 10: the waiting `track(_:waitingUpTo:)` waited for the backlog only, so a
/// burst through it outran a slow edge and the outbox's caps evicted what the backlog let
/// through (90,000 of 100,000 at the default limits). It waits for the outbox's room too now.
@Suite("Hardening: the waiting track waits for the outbox's caps too", .stuckTestLimit, .tags(.sockets, .burst), .skippedInFastLoop)
struct WaitingTrackCapsTests {
    @Test("20,000 events through the waiting track, an ingest slower than the caller, caps of 2,000: none evicted, all delivered")
    func burstLosesNothingToTheCaps() async throws {
        // Fewer under a sanitizer (ten times slower, and the whole suite runs beside it); still
        // two and a half times the caps.
        let total = isUnderSanitizer ? 5_000 : 20_000
        try await withDelivery(ingest: LocalIngest.Configuration(addedLatency: .milliseconds(10)), adjust: {
            $0.limits.outboxEvents = 2_000
            $0.limits.backlogEvents = 1_000
        }) { delivery in
            let client = delivery.client
            var accepted = 0
            for seq in 0..<total {
                // The limit runs on the manual clock, which the test never moves: the caller
                // waits as long as it takes.
                let outcome = await client.track("e", properties: ["seq": .int(Int64(seq))], waitingUpTo: .seconds(60))
                if outcome == .accepted { accepted += 1 }
            }
            #expect(accepted == total)
            _ = try await withTimeLimit(waitingFor: "the last batches") { await client.flush() }
            let counters = client.counters
            #expect(counters.evictedByCaps == 0, "\(counters)")
            #expect(delivery.ingest.summary.accepted == total && counters.delivered == total, "\(counters)")
        }
    }
}
