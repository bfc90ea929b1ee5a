import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// When events leave without a `flush()`, as README and *How events travel* tell a newcomer
/// watching `sdl ingest`: a full batch of 50 at once, a partial batch when its timer fires (5 s
/// after its first event in debug builds, 10 s in release), on the client's clock.
@Suite("Delivery: when events leave on their own", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct WhenEventsLeaveTests {
    @Test("50 events are a batch: sealed and sent at once, with no flush and no time passing")
    func aFullBatchLeavesAtOnce() async throws {
        try await withDelivery { delivery in
            delivery.track(0..<50)
            #expect(await delivery.ingest.waitForEvents(count: 50))
            #expect(delivery.ingest.summary.batches == 1)
            #expect(delivery.test.clock.now == ManualClock.Instant(offset: .zero), "no time passed on the client's clock")
        }
    }

    @Test("one event waits for its batch's timer: nothing is sent before it, and the event leaves when it fires, with no flush")
    func aPartialBatchLeavesWithItsTimer() async throws {
        try await withDelivery { delivery in
            delivery.client.track("alone")
            await delivery.test.drain()
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the batch's timer started")
            #expect(delivery.ingest.summary.requests == 0, "a partial batch is not sent before its timer")
            #if DEBUG
            #expect(SealPolicy.defaultMaxAge == .seconds(5))
            #else
            #expect(SealPolicy.defaultMaxAge == .seconds(10))
            #endif
            delivery.test.clock.advance(by: SealPolicy.defaultMaxAge)
            #expect(await delivery.ingest.waitForEvents(count: 1))
            #expect(delivery.ingest.receivedEvents.map(\.name) == ["alone"])
        }
    }
}
