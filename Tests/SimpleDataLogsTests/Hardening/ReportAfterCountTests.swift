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
            // What the counters said when each .delivered report was heard.
            let (heard, heardSink) = AsyncStream.makeStream(of: Int.self)
            let listener = Task {
                for await report in client.deliveryReports(bufferingNewest: 100) {
                    if case .delivered = report { heardSink.yield(client.counters.delivered) }
                }
            }
            defer { listener.cancel() }
            var heardCounts = heard.makeAsyncIterator()

            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<1)
            try #require(await delivery.ingest.waitForRequests(count: 1), "the batch is in flight")
            // The journal thread's loop now holds whatever it takes next: the uploader's outcome.
            gate.close()
            delivery.ingest.releaseHeldAnswers()
            // The journal thread's loop wakes for the uploader's outcome only, and is held with
            // it: the uploader has heard the 202 and acted on it (a flush would wait for the
            // held loop).
            await gate.someoneIsHeld()
            if hub.publishedCount > 0 {
                // Published already: it must have been counted already too.
                let seen = await heardCounts.next()
                #expect(seen == 1, "a .delivered report was published while the counters showed \(seen.map(String.init) ?? "nothing") delivered")
                gate.open()
            } else {
                gate.open()
                let seen = await heardCounts.next()
                #expect(seen == 1, "the report came once the outbox counted it")
            }
            await client.flush()
            #expect(client.counters.delivered == 1 && client.counters.isBalanced, "\(client.counters)")
        }
    }
}
