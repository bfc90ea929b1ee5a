import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A stand-in HTTP server for the service group: handles a burst of requests, and at graceful
/// shutdown finishes its in-flight requests (which still track) before it returns.
private struct FakeHTTPServer: Service {
    let analytics: SimpleDataLogsClient
    let stopped: AsyncStream<Void>.Continuation

    func run() async throws {
        for request in 0..<500 {
            analytics.track("request_handled", properties: ["seq": .int(Int64(request))], deviceID: "device-\(request % 20)")
        }
        try? await gracefulShutdown()
        // Draining the last requests: their events must reach the edge too.
        for request in 500..<600 {
            analytics.track("request_handled", properties: ["seq": .int(Int64(request))], deviceID: "device-\(request % 20)")
        }
        #expect(!Task.isCancelled, "graceful shutdown does not cancel")
        stopped.yield()
    }
}

/// A service that records when it was told to stop, for the harness's own test.
private struct RecordingService: Service {
    let name: String
    let log: Locked<[String]>

    func run() async throws {
        try await gracefulShutdown()
        log.withLock { $0.append("\(name) stopping, cancelled: \(Task.isCancelled)") }
    }
}

/// The bridge service-lifecycle offers for services that run until cancelled.
private struct CancellingBridgeService: Service {
    let client: SimpleDataLogsClient
    func run() async throws {
        await cancelWhenGracefulShutdown { await client.run() }
    }
}

@Suite("Servers: swift-service-lifecycle's ServiceGroup, reproduced", .stuckTestLimit, .skippedInFastLoop)
struct ServiceLifecycleTests {
    @Test("the harness is faithful: services stop in reverse order, one at a time, never cancelled")
    func harness() async throws {
        let log = Locked<[String]>([])
        let group = ServiceGroup(
            services: [RecordingService(name: "first", log: log), RecordingService(name: "second", log: log), RecordingService(name: "third", log: log)],
            logger: Logger(label: "test")
        )
        let running = Task { try await group.run() }
        try await withTimeLimit(waitingFor: "the group's graceful shutdown to stop every service") { await group.triggerGracefulShutdown() }
        try await withTimeLimit(waitingFor: "the group's run() to return") { try await running.value }
        #expect(log.withLock { $0 } == ["third stopping, cancelled: false", "second stopping, cancelled: false", "first stopping, cancelled: false"])
    }

    /// Runs `analytics` before a `FakeHTTPServer` in a group against a 300 ms edge, sends the
    /// group's graceful shutdown (what SIGTERM does), and once the group has ended runs `body`
    /// with the delivery and whether the server drained before analytics stopped; the delivery
    /// is torn down however `body` ends.
    private func withServerThenShutDown(
        _ makeAnalytics: (SimpleDataLogsClient) -> any Service, _ body: (Delivery, Bool) async throws -> Void
    ) async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(addedLatency: .milliseconds(300)), key: "sdl_sec_test0000000000", adjust: {
            $0.batchSize = 200
        }) { delivery in
            let (stopped, stoppedSignal) = AsyncStream.makeStream(of: Void.self)
            let group = ServiceGroup(
                services: [makeAnalytics(delivery.client), FakeHTTPServer(analytics: delivery.client, stopped: stoppedSignal)],
                gracefulShutdownSignals: [.sigterm],
                logger: Logger(label: "test")
            )
            let running = Task { try await group.run() }
            await delivery.test.drain()
            try await withTimeLimit(waitingFor: "the group's graceful shutdown to stop the server, then analytics") { await group.triggerGracefulShutdown() }
            try await withTimeLimit(waitingFor: "the group's run() to return") { try await running.value }
            stoppedSignal.finish()
            try await body(delivery, try await nextElement(of: stopped, waitingFor: "the server's stop signal") != nil)
        }
    }

    @Test("the article's AnalyticsService, listed before the server: SIGTERM stops the server first; every event, its last requests' too, reaches a 300 ms edge; the group returns", .tags(.sockets))
    func documentedService() async throws {
        try await withServerThenShutDown({ AnalyticsService(client: $0) }) { delivery, serverDrainedFirst in
            #expect(serverDrainedFirst, "the server drained before analytics stopped")
            #expect(delivery.deliveredSeqs == Array(0..<600), "the drained requests' events were sent too")
            let counters = delivery.client.counters
            #expect(counters.delivered == 600 && counters.pendingOnDisk == 0 && counters.isBalanced, "\(counters)")
            #expect(delivery.client.isShutDown)
        }
    }

    @Test("service-lifecycle's own bridge, cancelWhenGracefulShutdown { await client.run() }: the cancellation no longer cuts the last send", .tags(.sockets))
    func cancellingBridge() async throws {
        try await withServerThenShutDown({ CancellingBridgeService(client: $0) }) { delivery, _ in
            #expect(delivery.deliveredSeqs == Array(0..<600))
            #expect(delivery.client.counters.delivered == 600)
            #expect(delivery.test.log.lines.allSatisfy { !$0.message.contains("cancelled") }, "no send was cancelled")
        }
    }

    @Test("run(until:) returns when its trigger does, and also when its task is cancelled first")
    func runUntil() async throws {
        try await withTestClient { test throws in
            let (trigger, fire) = AsyncStream.makeStream(of: Void.self)
            let running = Task {
                await test.client.run(until: {
                    for await _ in trigger { return }
                })
            }
            test.client.track("e")
            fire.yield()
            try await withTimeLimit(waitingFor: "run(until:) to return once its trigger did") { await running.value }
            #expect(test.client.isShutDown)
            #expect(try test.journaledEvents().count == 1)
        }

        try await withTestClient { other in
            let never = Task { await other.client.run(until: { try? await gracefulShutdown() }) }
            never.cancel()
            try await withTimeLimit(waitingFor: "run(until:) to return once its task was cancelled") { await never.value }
            #expect(other.client.isShutDown, "outside a group, gracefulShutdown() waits for cancellation; so does run(until:)")
        }
    }
}
