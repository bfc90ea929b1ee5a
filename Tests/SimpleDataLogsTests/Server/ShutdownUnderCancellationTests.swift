import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Suspends until the calling task is cancelled: the shape of a server's service that runs until
/// it is torn down.
func untilCancelled() async {
    let (cancelled, signal) = AsyncStream.makeStream(of: Void.self)
    await withTaskCancellationHandler {
        for await _ in cancelled {}
    } onCancel: {
        signal.finish()
    }
}

@Suite("Servers: a shutdown in a cancelled task keeps its bounded send", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct ShutdownUnderCancellationTests {
    @Test("run(): cancelled with 3 batches queued against a 300 ms edge, it delivers all of them before returning")
    func runDeliversWhenCancelled() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(addedLatency: .milliseconds(300))) { delivery throws in
            let running = Task { await delivery.client.run() }
            delivery.track(0..<120)
            await delivery.test.drain()
            running.cancel()
            try await withTimeLimit(waitingFor: "the cancelled run() to send and return") { await running.value }
            #expect(delivery.deliveredSeqs == Array(0..<120), "the last send was not cut by the cancellation")
            let counters = delivery.client.counters
            #expect(counters.delivered == 120 && counters.pendingOnDisk == 0 && counters.isBalanced, "\(counters)")
            #expect(try JournalReader.events(inOutbox: delivery.test.directory.path).isEmpty, "nothing left to resend")
        }
    }

    @Test("withClient left by cancellation delivers what the scope tracked")
    func withClientDeliversWhenCancelled() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(addedLatency: .milliseconds(300)))
        let directory = TemporaryDirectory()
        let configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_sec_test0000000000", endpoint: ingest.endpoint, storageDirectory: directory.url)
        let (tracked, trackedSignal) = AsyncStream.makeStream(of: SimpleDataLogsClient.self)
        let scope = Task {
            await SimpleDataLogsClient.withClient(configuration) { client in
                for seq in 0..<75 { client.track("job_step", properties: ["seq": .int(Int64(seq))]) }
                trackedSignal.yield(client)
                await untilCancelled()
            }
        }
        let client = try #require(try await nextElement(of: tracked, waitingFor: "the withClient scope to track its events"))
        scope.cancel()
        try await withTimeLimit(waitingFor: "withClient, cancelled, to shut down and return") { await scope.value }
        #expect(ingest.receivedEvents.count == 75)
        #expect(client.counters.delivered == 75 && client.counters.isBalanced, "\(client.counters)")
        ingest.stop()
        directory.remove()
    }

    @Test("shutdown called from a task that is already cancelled still sends, and a second caller waits for the same shutdown")
    func shutdownFromCancelledTask() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(addedLatency: .milliseconds(300))) { delivery in
            delivery.track(0..<50)
            await delivery.test.drain()
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let first = Task {
                await untilCancelled()
                startedSignal.yield()
                await delivery.client.shutdown(timeLimit: .seconds(5))
            }
            first.cancel()
            _ = try await nextElement(of: started, waitingFor: "the first caller's task to be cancelled")
            let second = Task { await delivery.client.shutdown(timeLimit: .seconds(5)) }
            try await withTimeLimit(waitingFor: "the shutdown called from a cancelled task to return") { await first.value }
            try await withTimeLimit(waitingFor: "the second shutdown caller to return") { await second.value }
            #expect(delivery.deliveredSeqs == Array(0..<50))
            #expect(delivery.ingest.summary.batches == 1, "one shutdown, one send")
            #expect(delivery.client.counters.delivered == 50)
        }
    }

    @Test("an edge that never answers: a cancelled run() returns when the time limit passes on the client's clock, and the events stay on disk")
    func neverAnsweringEdge() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.normal(delay: .seconds(3_600))])
            let running = Task { await delivery.client.run(shutdownTimeLimit: .seconds(2)) }
            delivery.track(0..<10)
            await delivery.test.drain()
            running.cancel()
            #expect(await delivery.ingest.waitForRequests(count: 1))
            // The shutdown's time limit and the request's own timeout both sleep on the manual clock.
            try #require(await delivery.test.clock.waitForSleepers(count: 2), "the code under test started its timers")
            delivery.test.clock.advance(by: .seconds(2))
            try await withTimeLimit(waitingFor: "run() to return at its shutdown time limit") { await running.value }
            let counters = delivery.client.counters
            #expect(counters.delivered == 0 && counters.pendingOnDisk == 10 && counters.isBalanced, "\(counters)")
            #expect(try JournalReader.events(inOutbox: delivery.test.directory.path).count == 10, "kept for the next start")
        }
    }
}
