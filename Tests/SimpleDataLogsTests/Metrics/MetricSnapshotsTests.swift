import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// The snapshot sequence on the client's manual clock. The clients here do not upload (or have
/// flushed), so the polling task is the only sleeper on the clock and `tick` knows when a tick
/// has happened.
@Suite("Metrics: snapshots on change, coalesced, bounded, finished at shutdown", .stuckTestLimit, .skippedInFastLoop)
struct MetricSnapshotsTests {
    @Test("the first snapshot comes at once; three changes within one interval give one snapshot; intervals with no change give none")
    func coalescesChanges() async throws {
        try await withTestClient { test in
            let client = test.client
            let snapshots = client.metricSnapshots(every: .seconds(1))
            let first = try #require(try await nextElement(of: snapshots, waitingFor: "the first snapshot"))
            #expect(first.counters == DeliveryCounters() && first.requestsAnswered == 0 && first.lastRoundTrip == nil)

            for _ in 0..<3 { client.track("e") }
            // Uploads are off here: the flush journals and seals, so no seal timer sleeps beside the poller.
            await client.flush()
            try await tick(test.clock, by: .seconds(1))
            let second = try #require(try await nextElement(of: snapshots, waitingFor: "the snapshot of the three changes"))
            #expect(second.counters.tracked == 3 && second.pendingOnDisk == 3 && second.pendingInMemory == 0, "\(second)")

            try await tick(test.clock, by: .seconds(1))
            try await tick(test.clock, by: .seconds(1))
            client.track("e")
            await client.flush()
            try await tick(test.clock, by: .seconds(1))
            let third = try #require(try await nextElement(of: snapshots, waitingFor: "the snapshot of the fourth event"))
            #expect(third.counters.tracked == 4 && third.pendingOnDisk == 4)
            #expect(snapshots.supersededCount == 0, "the quiet ticks yielded nothing: no snapshot was waiting to be replaced")
        }
    }

    @Test("bounded: a reader that does not read while 1,000 changes happen, one per interval, then reads gets the newest snapshot only", .tags(.burst))
    func holdsOnlyTheNewest() async throws {
        // Not configured: the counters count events held before `configure`, and nothing but the
        // polling task sleeps on the clock.
        try await withTestClient(configure: false) { test in
            let snapshots = test.client.metricSnapshots(every: .seconds(1))
            for _ in 0..<1_000 {
                test.client.track("e")
                try await tick(test.clock, by: .seconds(1))
            }
            let newest = try #require(try await nextElement(of: snapshots, waitingFor: "the newest snapshot"))
            #expect(newest.counters.tracked == 1_000 && newest.pendingInMemory == 1_000, "\(newest)")
            #expect(snapshots.supersededCount == 1_000, "the first snapshot and 999 later ones were replaced unread")
            await shutDown(test.client)
            #expect(try await remainingElements(of: snapshots, waitingFor: "the end of the snapshots") == [],
                    "nothing changed at the shutdown: no final snapshot, and the sequence ends")
        }
    }

    @Test("finished at shutdown: after the last send, the final snapshot (every event delivered, three requests answered) and then the end; a late subscriber gets that snapshot alone", .tags(.sockets))
    func finishesAtShutdown() async throws {
        try await withDelivery { delivery in
            let snapshots = delivery.client.metricSnapshots(every: .seconds(10))
            delivery.track(0..<120)
            await shutDown(delivery.client)
            let all = try await remainingElements(of: snapshots, waitingFor: "the snapshots to end after the shutdown")
            let final = try #require(all.last)
            #expect(all.count == 1, "unread, the first snapshot was replaced by the final one")
            #expect(final.counters.delivered == 120 && final.pendingOnDisk == 0 && final.pendingInMemory == 0, "\(final)")
            #expect(final.requestsAnswered == 3, "three batches of 50, 50 and 20")
            #expect(final.lastRoundTrip == .zero, "the manual clock did not move while they flew")
            #expect(final.counters == delivery.client.counters && final.counters.isBalanced)

            let late = delivery.client.metricSnapshots(every: .seconds(10))
            #expect(try await remainingElements(of: late, waitingFor: "a late subscriber's snapshots") == [final])
        }
    }

    @Test("a reader that stops reading ends the polling task: its sleep on the clock is cancelled")
    func readerLeaving() async throws {
        try await withTestClient(configure: false) { test in
            let cancelled = Task { for await _ in test.client.metricSnapshots(every: .seconds(1)) {} }
            try #require(await test.clock.waitForSleepers(count: 1))
            cancelled.cancel()
            try await withTimeLimit(waitingFor: "the cancelled reader to stop") { await cancelled.value }
            #expect(test.clock.sleeperCount == 0, "cancelling the reader cancelled the polling")

            let leaving = Task {
                for await _ in test.client.metricSnapshots(every: .seconds(1)) { break }
            }
            try await withTimeLimit(waitingFor: "the reader to leave its loop") { await leaving.value }
            try #require(await test.clock.waitForSleepers(count: 0))
            #expect(test.clock.sleeperCount == 0, "leaving the loop dropped the iterator, which ended the polling")
        }
    }

    @Test("an interval below 100 ms is raised to it, so an interval of zero does not spin")
    func intervalFloor() async throws {
        try await withTestClient(configure: false) { test in
            let snapshots = test.client.metricSnapshots(every: .zero)
            try #require(await test.clock.waitForSleepers(count: 1))
            #expect(test.clock.nextDeadline == ManualClock.Instant(offset: .milliseconds(100)))
            _ = snapshots
        }
    }

    @Test("flushAndDisable does not end the sequence: the next tick shows the opt-out's deletion, and collection turned on again shows next")
    func flushAndDisableGoesOn() async throws {
        try await withTestClient { test in
            let client = test.client
            let snapshots = client.metricSnapshots(every: .seconds(1))
            _ = try await nextElement(of: snapshots, waitingFor: "the first snapshot")
            for _ in 0..<5 { client.track("e") }
            await client.flushAndDisable()
            try await tick(test.clock, by: .seconds(1))
            let optedOut = try #require(try await nextElement(of: snapshots, waitingFor: "the snapshot after the opt-out"))
            #expect(optedOut.counters.deletedByOptOut == 5 && optedOut.counters.pending == 0, "uploads are off: the five were deleted, \(optedOut)")

            client.setEnabled(true)
            client.track("again")
            await client.flush()
            try await tick(test.clock, by: .seconds(1))
            let again = try #require(try await nextElement(of: snapshots, waitingFor: "the snapshot after collection came back"))
            #expect(again.counters.tracked == 6 && again.pendingOnDisk == 1, "\(again)")
        }
    }

    @Test("a client released without shutdown ends its snapshots: unconfigured at once, configured once its queue is journaled")
    func releasedClient() async throws {
        let unconfigured = Self.subscribeAndRelease(configuredIn: nil)
        let left = try await remainingElements(of: unconfigured, waitingFor: "the unconfigured client's snapshots to end")
        #expect(left.map(\.counters.tracked) == [10], "the first snapshot, then the end")

        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let configured = Self.subscribeAndRelease(configuredIn: directory)
        let final = try #require(try await remainingElements(of: configured, waitingFor: "the configured client's snapshots to end").last)
        #expect(final.pendingOnDisk == 10 && final.pendingInMemory == 0, "journaled by the release, then the final snapshot: \(final)")
    }

    /// A client (configured in `directory`, if given, with uploads off) that tracks 10 events,
    /// subscribes, and is released; its snapshots.
    private static func subscribeAndRelease(configuredIn directory: TemporaryDirectory?) -> MetricSnapshots {
        var tuning = ClientTuning()
        tuning.startsUploader = false
        let client = SimpleDataLogsClient(
            clock: ManualClock(), wallClock: SettableWallClock(), logSink: RecordingLogSink(), tuning: tuning, environment: [:]
        )
        if let directory {
            client.configure(SimpleDataLogsClient.Configuration(
                ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url
            ))
        }
        for _ in 0..<10 { client.track("e") }
        return client.metricSnapshots(every: .seconds(1))
    }
}
