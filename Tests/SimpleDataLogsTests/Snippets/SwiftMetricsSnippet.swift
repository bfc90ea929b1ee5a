// The swift-metrics bridge of Metrics.md and README's "Metrics", compiled against stand-ins with
// swift-metrics' signatures, read from its source at 2.10.1 (commit d51c8d1):
// `Sources/CoreMetrics/Metrics.swift` for `Counter.init(label:dimensions:)` and
// `increment(by:)` (generic over `BinaryInteger`), `Gauge.init(label:dimensions:)` (a `Recorder`
// made with `aggregate: false`, whose `record(_:)` takes a `BinaryInteger` or a
// `BinaryFloatingPoint`), `Timer.init(label:dimensions:)` and `recordNanoseconds(_:)`; and
// `Sources/Metrics/Metrics.swift` for `Timer.record(duration:)` (macOS 13 / iOS 16, the SDK's
// floor). What the bridge relies on, from that source: a metric takes its backend when it is
// made (the task-local factory of `withMetricsFactory`, else the one `MetricsSystem.bootstrap`
// set), so the bridge makes its metrics once, at startup; a `Counter` only adds; a `Gauge`
// records with "set" semantics. The stand-ins do the same: each takes the recording backend of
// the task that made it (`withMetricsFactory` below), so tests run in parallel without a global.
// Everything sits in a private namespace, so the stand-ins' names (`Counter`, `Gauge`, `Timer`)
// never reach the rest of the test module.
import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

private enum SwiftMetricsBridge {
    // MARK: The bridge, as the docs show it

    /// A SimpleDataLogs client's counters in swift-metrics. Make it once, at startup, after
    /// `MetricsSystem.bootstrap(…)`; `export` returns when the client has shut down.
    struct AnalyticsMetrics: Sendable {
        let tracked = Counter(label: "sdl_events_tracked_total")
        let delivered = Counter(label: "sdl_events_delivered_total")
        let evicted = Counter(label: "sdl_events_evicted_total")
        let skipped = Counter(label: "sdl_events_skipped_total")
        let rejected = Counter(label: "sdl_events_rejected_total")
        let setAside = Counter(label: "sdl_events_set_aside_total")
        let pendingOnDisk = Gauge(label: "sdl_events_pending_on_disk")
        let pendingInMemory = Gauge(label: "sdl_events_pending_in_memory")
        let setAsideNow = Gauge(label: "sdl_events_set_aside")
        let roundTrip = Timer(label: "sdl_request_round_trip")

        func export(_ snapshots: MetricSnapshots) async {
            var previous: MetricSnapshot?
            for await snapshot in snapshots {
                let added = snapshot.increments(since: previous)
                tracked.increment(by: added.tracked)
                delivered.increment(by: added.delivered)
                evicted.increment(by: added.evictedByCaps)
                skipped.increment(by: added.skippedBacklog)
                rejected.increment(by: added.rejectedByIngest)
                setAside.increment(by: added.setAside)
                pendingOnDisk.record(snapshot.pendingOnDisk)
                pendingInMemory.record(snapshot.pendingInMemory)
                setAsideNow.record(snapshot.setAside)
                // A sample per interval in which requests were answered: the latest one's round trip.
                if added.requestsAnswered > 0, let last = snapshot.lastRoundTrip {
                    roundTrip.record(duration: last)
                }
                previous = snapshot
            }
        }
    }

    /// Anywhere: subscribe first, so the final counters are exported too.
    static func exportWhileServing(analytics: SimpleDataLogsClient) async {
        let metrics = AnalyticsMetrics()
        let snapshots = analytics.metricSnapshots(every: .seconds(10))
        async let exported: Void = metrics.export(snapshots)
        // … serve; on the way out:
        await analytics.shutdown()
        await exported
    }

    /// With swift-service-lifecycle: the analytics service exports beside `run(until:)`.
    struct MeteredAnalyticsService: Service {
        let client: SimpleDataLogsClient
        let metrics: AnalyticsMetrics

        func run() async throws {
            let snapshots = client.metricSnapshots(every: .seconds(10))
            async let exported: Void = metrics.export(snapshots)
            await client.run(until: { try? await gracefulShutdown() })
            await exported
        }
    }

    /// README's short form.
    static func readmeMetricsLoop(analytics: SimpleDataLogsClient, delivered: Counter, pendingOnDisk: Gauge) async {
        var previous: MetricSnapshot?
        for await snapshot in analytics.metricSnapshots(every: .seconds(10)) {
            let added = snapshot.increments(since: previous)
            delivered.increment(by: added.delivered)       // a swift-metrics Counter
            pendingOnDisk.record(snapshot.pendingOnDisk)   // a swift-metrics Gauge
            previous = snapshot
        }
    }

    // MARK: Stand-ins with swift-metrics' signatures

    /// What the stand-ins report to, in place of a `MetricsFactory`'s handlers: every value each
    /// metric was given, by label.
    final class RecordingMetrics: Sendable {
        private let recorded = Locked<[String: [Int64]]>([:])

        /// Every value given to the metric labelled `label`, in order: a counter's increments, a
        /// gauge's records, a timer's nanoseconds.
        func values(_ label: String) -> [Int64] { recorded.withLock { $0[label] ?? [] } }

        /// A counter's total: what a backend would show.
        func total(_ label: String) -> Int64 { values(label).reduce(0, +) }

        func record(_ value: Int64, for label: String) {
            recorded.withLock { $0[label, default: []].append(value) }
        }

        /// The backend of the metrics made in this task (swift-metrics' task-local factory).
        @TaskLocal static var current: RecordingMetrics?
    }

    /// swift-metrics' `withMetricsFactory(_:_:)`: metrics made inside `operation` report to `factory`.
    static func withMetricsFactory<Result>(_ factory: RecordingMetrics, _ operation: () throws -> Result) rethrows -> Result {
        try RecordingMetrics.$current.withValue(factory, operation: operation)
    }

    /// swift-metrics' `Counter`.
    final class Counter: Sendable {
        let label: String
        let dimensions: [(String, String)]
        let backend: RecordingMetrics?

        init(label: String, dimensions: [(String, String)] = []) {
            self.label = label
            self.dimensions = dimensions
            backend = RecordingMetrics.current
        }

        func increment<DataType: BinaryInteger>(by amount: DataType) {
            backend?.record(Int64(amount), for: label)
        }
    }

    /// swift-metrics' `Gauge` (a `Recorder` that does not aggregate).
    final class Gauge: Sendable {
        let label: String
        let dimensions: [(String, String)]
        let backend: RecordingMetrics?

        init(label: String, dimensions: [(String, String)] = []) {
            self.label = label
            self.dimensions = dimensions
            backend = RecordingMetrics.current
        }

        func record<DataType: BinaryInteger>(_ value: DataType) {
            backend?.record(Int64(value), for: label)
        }

        func record<DataType: BinaryFloatingPoint>(_ value: DataType) {
            backend?.record(Int64(value), for: label)
        }
    }

    /// swift-metrics' `Timer`.
    final class Timer: Sendable {
        let label: String
        let dimensions: [(String, String)]
        let backend: RecordingMetrics?

        init(label: String, dimensions: [(String, String)] = []) {
            self.label = label
            self.dimensions = dimensions
            backend = RecordingMetrics.current
        }

        func recordNanoseconds(_ duration: Int64) {
            backend?.record(duration, for: label)
        }

        /// In `Metrics`, not `CoreMetrics`; converts to nanoseconds and records them.
        func record(duration: Duration) {
            let (seconds, attoseconds) = duration.components
            recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
    }
}

@Suite("Docs: the swift-metrics bridge, run against a real client and a local ingest", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct SwiftMetricsSnippetTests {
    private typealias Bridge = SwiftMetricsBridge

    @Test("the bridge's counters, gauges and round-trip timer receive what the client did: 30 events tracked and delivered in one request answered after 40 ms")
    func bridgeFeedsTheMetrics() async throws {
        try await withDelivery(adjust: { $0.requestTimeout = .seconds(600) }) { delivery in
            let recorded = Bridge.RecordingMetrics()
            let metrics = Bridge.withMetricsFactory(recorded) { Bridge.AnalyticsMetrics() }
            // As the docs say: subscribe before anything can shut the client down.
            let snapshots = delivery.client.metricSnapshots(every: .seconds(10))
            let exporting = Task { await metrics.export(snapshots) }
            // The one request's answer is held while the client's clock moves 40 ms.
            delivery.ingest.script([.heldUntilReleased])
            delivery.track(0..<30)
            let flushing = Task { await delivery.client.flush() }
            #expect(await delivery.ingest.waitForRequests(count: 1), "the batch is on its way; its answer waits")
            delivery.test.clock.advance(by: .milliseconds(40))
            delivery.ingest.releaseHeldAnswers()
            _ = try await withTimeLimit(waitingFor: "the flush to end once the answer is released") { await flushing.value }
            // The shutdown ends the snapshots after the final one, and so the export.
            await shutDown(delivery.client)
            try await withTimeLimit(waitingFor: "the export to end after the client's shutdown") { await exporting.value }

            #expect(recorded.total("sdl_events_tracked_total") == 30)
            #expect(recorded.total("sdl_events_delivered_total") == 30)
            for label in ["sdl_events_evicted_total", "sdl_events_skipped_total", "sdl_events_rejected_total", "sdl_events_set_aside_total"] {
                #expect(recorded.total(label) == 0 && !recorded.values(label).isEmpty, "\(label) is exported, at zero")
            }
            #expect(recorded.values("sdl_events_pending_on_disk").last == 0)
            #expect(recorded.values("sdl_events_pending_in_memory").last == 0)
            #expect(recorded.values("sdl_events_set_aside").last == 0)
            #expect(recorded.values("sdl_request_round_trip") == [40_000_000], "one sample, the answer's 40 ms in nanoseconds")
        }
    }

    @Test("the service-lifecycle form: the metered service exports until the group's graceful shutdown has shut the client down, final counters included")
    func meteredService() async throws {
        try await withDelivery(key: "sdl_sec_test0000000000") { delivery in
            let recorded = Bridge.RecordingMetrics()
            let metrics = Bridge.withMetricsFactory(recorded) { Bridge.AnalyticsMetrics() }
            let group = ServiceGroup(
                services: [Bridge.MeteredAnalyticsService(client: delivery.client, metrics: metrics)],
                gracefulShutdownSignals: [.sigterm], logger: Logger(label: "test")
            )
            let running = Task { try await group.run() }
            delivery.track(0..<75)
            await delivery.test.drain()
            try await withTimeLimit(waitingFor: "the group's graceful shutdown") { await group.triggerGracefulShutdown() }
            try await withTimeLimit(waitingFor: "the group's run() to return") { try await running.value }
            #expect(recorded.total("sdl_events_tracked_total") == 75)
            #expect(recorded.total("sdl_events_delivered_total") == 75, "the shutdown's last send is in the final snapshot")
            #expect(recorded.values("sdl_events_pending_on_disk").last == 0)
        }
    }
}
