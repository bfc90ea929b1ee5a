import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23, item 9: with several requests in flight, each refusal of one round counted as its own
/// failure and drew a fresh wait that replaced the round's, so a server came back minutes after
/// a short outage. A round counts once now, as a round of 401s does.
@Suite("Hardening: an outage with requests in flight: one failure per round, and a prompt return", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct OutageRoundTests {
    @Test("4 requests in flight, 5 refused rounds: every wait within the round's ceiling, and the first send after the edge is back within it")
    func firstSendAfterRecovery() async throws {
        // Each round's four answers (503) are held at the ingest until all four requests have
        // arrived, so each round is exactly four requests in flight, whatever the machine's speed:
        // a batch sealed late joins the round's free place instead of starting a round of its
        // own. The four batches are sealed while the client is offline, so the first round has
        // all four (a writer held while tracking left that to timing: under load a first chunk
        // of 50 sealed a batch that went out alone, and the round never had four). The offline
        // flush sends nothing; going online starts the first pass, and the rounds counted here
        // are that pass and those the timer starts.
        let rounds = 5
        try await withDelivery(adjust: { $0.maxConcurrentRequests = 4 }) { delivery in
            let reports = delivery.client.deliveryReports(bufferingNewest: 1_000)
            let clock = delivery.test.clock
            delivery.ingest.script(Array(repeating: ScriptedAnswer(.respond(status: 503, retryAfter: nil), isHeld: true), count: 4 * rounds))
            delivery.client.setOffline(true)
            delivery.track(0..<200)
            _ = try await withTimeLimit(waitingFor: "the offline flush that seals the four batches") { await delivery.client.flush() }
            #expect(delivery.ingest.requests.isEmpty, "offline: nothing sent yet")
            delivery.client.setOffline(false)  // the four sealed batches go out: the first round
            for round in 1...rounds {
                try #require(await delivery.ingest.waitForRequests(count: 4 * round), "round \(round): four requests in flight")
                delivery.ingest.releaseHeldAnswers()
                var retries: [Duration] = []
                while retries.count < 4 {
                    guard let report = try await nextElement(of: reports, waitingFor: "round \(round)'s retry reports") else { break }
                    if case .willRetry(_, let after, _) = report { retries.append(after) }
                }
                let ceiling = Backoff.ceiling(afterFailures: round)
                #expect(retries.count == 4 && retries.allSatisfy { $0 <= ceiling }, "round \(round): waits \(retries), ceiling \(ceiling)")
                guard round < rounds else { break }
                // The round's one timer; moving to it starts the next round.
                try #require(await clock.waitForSleepers(count: 1), "the code under test started its timer")
                let deadline = try #require(clock.nextDeadline)
                clock.advance(to: deadline)
            }
            #expect(delivery.ingest.summary.requests == 4 * rounds && delivery.client.counters.pendingOnDisk == 200)

            // The edge is back (its script is used up: it answers normally). Within the fifth
            // round's ceiling (16 s; it was up to 5 minutes when each refusal counted) the next
            // send goes and delivers all.
            try #require(await clock.waitForSleepers(count: 1), "the backoff's timer")
            clock.advance(by: Backoff.ceiling(afterFailures: rounds))
            #expect(await delivery.ingest.waitForEvents(count: 200, timeout: .seconds(20)), "delivered within the backoff after the edge came back")
        }
    }
}
