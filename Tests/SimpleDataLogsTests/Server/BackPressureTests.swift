import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Servers: back-pressure instead of loss, for callers who prefer to wait", .stuckTestLimit, .skippedInFastLoop)
struct BackPressureTests {
    /// Runs `body` with a client whose backlog (100 events) is full and whose writer is held, and
    /// tears the client down however `body` ends.
    private static func withFullBacklog<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TestClient, WriterGate) async throws -> Result
    ) async rethrows -> Result {
        let gate = WriterGate(isOpen: false)
        return try await withTestClient(gate: gate, adjust: { $0.limits.backlogEvents = 100 }) { test in
            for index in 0..<100 { test.client.track("filler", properties: ["seq": .int(Int64(index))]) }
            return try await body(test, gate)
        }
    }

    @Test("it waits while the backlog is full and is taken when the writer catches up: nothing skipped")
    func waitsForRoom() async throws {
        try await Self.withFullBacklog { test, gate in
            let client = test.client
            let waiting = Task { await client.track("patient", properties: ["seq": 100], waitingUpTo: .seconds(10)) }
            try #require(await test.clock.waitForSleepers(count: 1), "the caller is waiting, its time limit running")
            #expect(client.counters.tracked == 100, "not counted while it waits")
            gate.open()
            #expect(try await withTimeLimit(waitingFor: "the waiting track to be taken") { await waiting.value } == .accepted)
            let events = try await test.flushedEvents()
            #expect(try events.map { try $0.requiredInt("seq") } == Array(0...100))
            #expect(client.counters.skippedBacklog == 0 && client.counters.isBalanced)
        }
    }

    @Test("the time limit passes on the client's clock: the event is skipped, reported and counted, with the one warning")
    func timeLimit() async throws {
        try await Self.withFullBacklog { test, gate in
            let client = test.client
            let waiting = Task { await client.track("impatient", waitingUpTo: .seconds(2)) }
            try #require(await test.clock.waitForSleepers(count: 1))
            test.clock.advance(by: .seconds(2))
            #expect(try await withTimeLimit(waitingFor: "the waiting track to give up at its limit") { await waiting.value } == .skippedBacklogFull)
            let counters = client.counters
            #expect(counters.tracked == 101 && counters.skippedBacklog == 1, "\(counters)")
            #expect(test.log.lines.filter { $0.message.contains("waiting to be written") }.count == 1)
            gate.open()
            #expect(try await test.flushedEvents().count == 100)
            #expect(client.counters.isBalanced)
        }
    }

    @Test("a cancelled caller stops waiting at once; a shutdown lets every waiter go")
    func cancellationAndShutdown() async throws {
        try await Self.withFullBacklog { test, gate in
            let client = test.client
            let cancelled = Task { await client.track("cancelled", waitingUpTo: .seconds(60)) }
            try #require(await test.clock.waitForSleepers(count: 1))
            cancelled.cancel()
            #expect(try await withTimeLimit(waitingFor: "the cancelled track to stop waiting") { await cancelled.value } == .skippedBacklogFull)

            let waiting = Task { await client.track("at-shutdown", waitingUpTo: .seconds(60)) }
            try #require(await test.clock.waitForSleepers(count: 1))
            gate.open()
            let shuttingDown = Task { await client.shutdown() }
            let outcome = try await withTimeLimit(waitingFor: "the waiting track to be let go at shutdown") { await waiting.value }
            #expect(outcome == .ignoredAfterShutdown || outcome == .accepted, "\(outcome)")
            try await withTimeLimit(waitingFor: "the shutdown to return") { await shuttingDown.value }
            #expect(client.counters.isBalanced)
        }
    }

    @Test("plain track() never waits: with the backlog full it returns at once and skips")
    func plainTrackNeverWaits() async throws {
        await Self.withFullBacklog { test, gate in
            test.client.track("skipped")
            #expect(test.clock.sleeperCount == 0)
            #expect(test.client.counters.skippedBacklog == 1)
            gate.open()
        }
    }

    @Test("400 handlers × 50 events through a 500-event backlog with waiting: every event is taken, none skipped", .tags(.burst))
    func burstWithBackPressure() async throws {
        try await withTestClient(adjust: {
            // Uploads are off here: the outbox must hold the whole run.
            $0.limits.outboxEvents = 100_000
            $0.limits.backlogEvents = 500
            $0.batchSize = 500
        }) { test in
            let client = test.client
            // Their time limits run on the manual clock, which nobody moves: the whole burst is
            // bounded in real time instead.
            let outcomes: [SimpleDataLogsClient.TrackOutcome] = try await withTimeLimit(waitingFor: "400 handlers to have all their events taken") {
                await withTaskGroup(of: [SimpleDataLogsClient.TrackOutcome].self) { group in
                    for handler in 0..<400 {
                        group.addTask {
                            var outcomes: [SimpleDataLogsClient.TrackOutcome] = []
                            for step in 0..<50 {
                                let seq = Int64(handler * 50 + step)
                                outcomes.append(await client.track("imported", properties: ["seq": .int(seq)], deviceID: "device-\(handler)", waitingUpTo: .seconds(30)))
                            }
                            return outcomes
                        }
                    }
                    var all: [SimpleDataLogsClient.TrackOutcome] = []
                    for await outcomes in group { all += outcomes }
                    return all
                }
            }
            #expect(outcomes.count == 20_000 && outcomes.allSatisfy { $0 == .accepted })
            let events = try await test.flushedEvents()
            let seqs = Set(try events.map { try $0.requiredInt("seq") })
            #expect(events.count == 20_000 && seqs.count == 20_000 && seqs.min() == 0 && seqs.max() == 19_999)
            let counters = client.counters
            #expect(counters.skippedBacklog == 0 && counters.tracked == 20_000 && counters.isBalanced, "\(counters)")
        }
    }
}
