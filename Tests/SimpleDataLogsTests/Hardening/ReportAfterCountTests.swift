import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A delivery report used to be published by the uploader as soon as it heard the answer, while
/// the outbox, which counts the delivery, might not have applied it yet: an app that read
/// `counters` on a `.delivered` report could find the events still pending. Now the reports of
/// answers that change what is stored travel with those outcomes and are published by the
/// outbox once it has applied them.
@Suite("Hardening: a delivery report is published only once the counters show it", .stuckTestLimit, .tags(.sockets))
struct ReportAfterCountTests {
    @Test("the journal thread held while a 202 comes back: no .delivered report before the outbox counted it; once it runs, the report comes with delivered = 1")
    func reportWaitsForTheCount() async throws {
        let gate = WriterGate(isOpen: true)
        var faults = FaultInjection()
        faults.writerGate = gate
        try await withDelivery(faults: faults, adjust: { $0.batchSize = 1 }) { delivery in
            let client = delivery.client
            let hub = try #require(client.pipeline?.reports)
            // Subscribed here, synchronously: a listener task could start after the report (its
            // first version did, on a pool another test had saturated, and hung).
            let reports = client.deliveryReports(bufferingNewest: 100)

            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<1)
            try #require(await delivery.ingest.waitForRequests(count: 1), "the batch is in flight")
            // The journal thread's loop now holds whatever it takes next: the uploader's outcome.
            gate.close()
            delivery.ingest.releaseHeldAnswers()
            // The loop wakes for the uploader's outcome only, and is held with it: the uploader
            // has heard the 202 and acted on it. (A flush would wait for the held loop.)
            let held = try await withTimeLimit(testWaitLimit, waitingFor: "the journal thread held with the outcome") {
                await gate.someoneIsHeld()
                return true
            }
            try #require(held)
            // The outbox cannot count anything now. A report published already ran ahead of it.
            #expect(
                hub.publishedCount == 0 || client.counters.delivered == 1,
                "a .delivered report was published while the counters showed \(client.counters.delivered) delivered"
            )
            gate.open()
            var deliveredAtReport: Int?
            while deliveredAtReport == nil, let report = try await nextElement(of: reports, waitingFor: "the .delivered report") {
                if case .delivered = report { deliveredAtReport = client.counters.delivered }
            }
            #expect(deliveredAtReport == 1, "the report came once the outbox counted it")
            await client.flush()
            #expect(client.counters.delivered == 1 && client.counters.isBalanced, "\(client.counters)")
        }
    }
}
