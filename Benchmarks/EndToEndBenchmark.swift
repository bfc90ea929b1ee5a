import Foundation
import SimpleDataLogs
import SimpleDataLogsOTLP
import SimpleDataLogsTesting

/// Figure 4: events/s from `track()` to a 202 at `LocalIngest` on loopback through the real
/// transport (`URLSessionTransport`), against the same transport sending the same kind of bodies
/// (same builder, same batch size, fresh ids) back to back, times the batch size.
///
/// Method: one producer keeps the events not yet delivered under 9,000 (the outbox holds 10,000)
/// and those not yet journaled under 4,000, so nothing is skipped or evicted; after the last
/// `track()`, `flush()` seals the open batch; the clock stops when the ingest has counted every
/// event. A count that does not arrive is reported as broken.
///
/// OTLP (issue 27): the same SDK run with ``OTLPTransport`` sending to a `LocalCollector` on
/// loopback (`e2e.otlp.*`), reported against the default transport's figure of the same setup
/// measured just before (its baseline), so the ratio is the cost of the OTLP adapter end to end.

struct EndToEndBenchmark {
    let options: Options
    let report: Report

    struct Setup {
        var name: String
        var batchSize: Int
        var inFlight: Int
        var gzip: Bool
        var events: Int
        var target: String?
        var met: ((_ rate: Double, _ baseline: Double) -> Bool)?
    }

    func run() async {
        let quick = options.quick
        let setups = [
            Setup(name: "e2e.default.gzip", batchSize: 50, inFlight: 1, gzip: true, events: quick ? 2_000 : 20_000,
                  target: ">= 50% of baseline", met: { $0 >= 0.5 * $1 }),
            Setup(name: "e2e.default.plain", batchSize: 50, inFlight: 1, gzip: false, events: quick ? 2_000 : 20_000,
                  target: ">= 50% of baseline", met: { $0 >= 0.5 * $1 }),
            Setup(name: "e2e.server.plain", batchSize: 1_000, inFlight: 4, gzip: false, events: quick ? 10_000 : 200_000,
                  target: ">= 200,000/s", met: { r, _ in r >= 200_000 }),
            Setup(name: "e2e.server.gzip", batchSize: 1_000, inFlight: 4, gzip: true, events: quick ? 10_000 : 200_000,
                  target: nil, met: nil),
        ]
        guard let folder = try? TemporaryFolder("e2e") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        var defaultRates: [String: Double] = [:]
        for (index, setup) in setups.enumerated() {
            let base = await baselineRate(setup)
            let rate = await sdkRate(setup, folder: folder.url.appendingPathComponent("\(index)"))
            guard let rate, let base else { continue }
            defaultRates[setup.name] = rate
            report.add(Figure(
                setup.name, rate, unit: "events/s", baseline: base, target: setup.target, met: setup.met?(rate, base),
                note: "\(setup.events) events, batch \(setup.batchSize), \(setup.inFlight) in flight, gzip \(setup.gzip ? "on" : "off"); baseline = URLSessionTransport.send of the same bodies x batch"
            ))
        }
        for (index, setup) in setups.enumerated() where setup.gzip {
            guard let rate = await otlpRate(setup, folder: folder.url.appendingPathComponent("otlp-\(index)")) else { continue }
            let name = setup.name.replacingOccurrences(of: "e2e.", with: "e2e.otlp.")
            report.add(Figure(
                name, rate, unit: "events/s", baseline: defaultRates[setup.name],
                note: "\(setup.events) events, batch \(setup.batchSize), \(setup.inFlight) in flight, gzip on; OTLPTransport to LocalCollector; baseline = \(setup.name) (the default transport to LocalIngest)"
            ))
        }
        // The receipts' cost: the same setup without them (their ledger is stored once per
        // operation that settles batches, before the files go), against the default (on).
        if let off = await sdkRate(setups[0], folder: folder.url.appendingPathComponent("receipts-off"), receipts: .off) {
            report.add(Figure(
                "e2e.default.gzip.receipts_off", off, unit: "events/s", baseline: defaultRates[setups[0].name],
                note: "as e2e.default.gzip with completenessReceipts = .off; baseline = e2e.default.gzip (receipts on, the default)"
            ))
        }
        await otlpAdapter(gzip: true)
        await otlpAdapter(gzip: false)
        await slowIngest(folder: folder.url.appendingPathComponent("slow"))
    }

    /// The OTLP adapter alone, per batch of 1,000 bench events: `OTLPTransport.send` with an
    /// inner transport that answers 200 from memory (inflate, read, write the export, compress,
    /// restate the answer), and the export's size per event against the ingest body's.
    private func otlpAdapter(gzip: Bool) async {
        let inner = InstantCollector()
        let otlp = OTLPTransport(collector: URL(string: "http://127.0.0.1:9")!, serviceName: "benchmark", inner: inner)
        var ids = EventIDGenerator()
        let now = SystemWallClock().nowMilliseconds
        let payloads = (0..<1_000).map { index in
            BenchmarkSupport.payload(name: BenchEvent.name, properties: BenchEvent.properties(index), id: ids.next(milliseconds: now), timestamp: now)
        }
        guard let request = BenchmarkSupport.uploadRequest(
            endpoint: URL(string: "http://127.0.0.1:9")!, ingestKey: BenchEvent.ingestKey, batchID: UUID(), payloads: payloads, sentAt: now, gzip: gzip
        ) else { report.broken("could not build a request"); return }
        let rounds = options.quick ? 20 : 200
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = Measure.now()
            guard let answer = try? await otlp.send(request), answer.status == 202 else {
                report.broken("e2e.otlp.adapter: the adapter did not restate a 200 as a 202")
                return
            }
            samples.append(Measure.seconds(start, Measure.now()) * 1_000)
        }
        samples.sort()
        let kind = gzip ? "gzip" : "plain"
        report.add(Figure(
            "e2e.otlp.adapter_ms_per_1000.\(kind)", samples[samples.count / 2], unit: "ms", runs: rounds, min: samples.first, max: samples.last,
            note: "median of \(rounds) OTLPTransport.send of one 1,000-event batch, inner transport answering 200 from memory"
        ))
        report.add(Figure(
            "e2e.otlp.bytes_per_event.\(kind)", Double(inner.lastBodyCount) / 1_000, unit: "bytes", baseline: Double(request.body.count) / 1_000,
            note: "the export's body per event (gzip \(gzip ? "on" : "off")); baseline = the ingest body's"
        ))
    }

    /// The SDK end to end; `nil` when the ingest did not count every event (reported as broken).
    private func sdkRate(
        _ setup: Setup, folder: URL, latency: Duration = .zero, receipts: CompletenessReceipts = .daily
    ) async -> Double? {
        let ingest: LocalIngest
        do { ingest = try LocalIngest(configuration: .init(addedLatency: latency)) } catch { report.broken("LocalIngest: \(error)"); return nil }
        defer { ingest.stop() }
        let client = BenchEvent.makeClient(
            folder: folder, endpoint: ingest.endpoint, batchSize: setup.batchSize, inFlight: setup.inFlight, gzip: setup.gzip, receipts: receipts
        )
        let start = Measure.now()
        produce(setup.events, into: client)
        await client.flush()
        let arrived = await ingest.waitForEvents(count: setup.events, timeout: .seconds(120))
        let end = Measure.now()
        let counters = client.counters
        await client.shutdown(timeLimit: .seconds(2))
        guard arrived else {
            report.broken("\(setup.name): the ingest counted \(ingest.summary.accepted) of \(setup.events) events; counters \(counters)")
            return nil
        }
        if counters.skippedBacklog > 0 || counters.evictedByCaps > 0 {
            report.note("\(setup.name): skipped \(counters.skippedBacklog), evicted \(counters.evictedByCaps)")
        }
        return Double(setup.events) / Measure.seconds(start, end)
    }

    /// Tracks `events` events, keeping those not yet delivered under 9,000 (the outbox holds
    /// 10,000) and those not yet journaled under 4,000, so nothing is skipped or evicted.
    private func produce(_ events: Int, into client: SimpleDataLogsClient) {
        var seq = 0
        while seq < events {
            let counters = client.counters
            let written = client.journalWatermark.eventsWritten
            let room = min(9_000 - (seq - counters.delivered), 4_000 - (seq - written), events - seq)
            if room < 16 && seq + room < events {
                Measure.sleep(microseconds: 100)
                continue
            }
            for _ in 0..<room {
                client.track(BenchEvent.name, properties: BenchEvent.properties(seq))
                seq += 1
            }
        }
    }

    /// The SDK end to end through ``OTLPTransport`` to a `LocalCollector`; `nil` when the
    /// collector did not take every event (reported as broken).
    private func otlpRate(_ setup: Setup, folder: URL) async -> Double? {
        let collector: LocalCollector
        do { collector = try LocalCollector() } catch { report.broken("LocalCollector: \(error)"); return nil }
        defer { collector.stop() }
        let client = BenchEvent.newClient(uploads: true)
        var configuration = BenchEvent.configuration(
            folder: folder, endpoint: collector.endpoint, batchSize: setup.batchSize, inFlight: setup.inFlight, gzip: setup.gzip
        )
        configuration.transport = OTLPTransport(collector: collector.endpoint, serviceName: "benchmark")
        client.configure(configuration)
        let start = Measure.now()
        produce(setup.events, into: client)
        // flush() returns once every batch got its answer; a second one covers a batch that
        // was retried (it never is on loopback, but a lost count must show as broken, not hang).
        for _ in 0..<3 where collector.acceptedLogRecords < setup.events { await client.flush() }
        let end = Measure.now()
        let counters = client.counters
        await client.shutdown(timeLimit: .seconds(2))
        guard collector.acceptedLogRecords == setup.events else {
            report.broken("e2e.otlp \(setup.name): the collector took \(collector.acceptedLogRecords) of \(setup.events) events; counters \(counters)")
            return nil
        }
        return Double(setup.events) / Measure.seconds(start, end)
    }

    /// The transport alone: the same bodies (same builder, batch size and compression, fresh ids),
    /// `inFlight` requests at a time.
    private func baselineRate(_ setup: Setup) async -> Double? {
        let ingest: LocalIngest
        do { ingest = try LocalIngest() } catch { report.broken("LocalIngest: \(error)"); return nil }
        defer { ingest.stop() }
        let requestCount = max(setup.inFlight * 2, (options.quick ? 2_000 : 10_000) / setup.batchSize)
        var ids = EventIDGenerator()
        let wallClock = SystemWallClock()
        var requests: [UploadRequest] = []
        for request in 0..<requestCount {
            let now = wallClock.nowMilliseconds
            let payloads = (0..<setup.batchSize).map { index in
                BenchmarkSupport.payload(
                    name: BenchEvent.name, properties: BenchEvent.properties(request * setup.batchSize + index),
                    id: ids.next(milliseconds: now), timestamp: now
                )
            }
            guard let built = BenchmarkSupport.uploadRequest(
                endpoint: ingest.endpoint, ingestKey: BenchEvent.ingestKey, batchID: UUID(), payloads: payloads, sentAt: now, gzip: setup.gzip
            ) else { report.broken("could not build a request"); return nil }
            requests.append(built)
        }
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        // One request first, to open the connection, as the SDK's first batch does.
        let all = requests
        let start = Measure.now()
        let statuses = await withTaskGroup(of: [Int].self) { group in
            let lanes = setup.inFlight
            for lane in 0..<lanes {
                group.addTask {
                    var statuses: [Int] = []
                    for index in stride(from: lane, to: all.count, by: lanes) {
                        let status = (try? await transport.send(all[index]).status) ?? -1
                        statuses.append(status)
                    }
                    return statuses
                }
            }
            var statuses: [Int] = []
            for await part in group { statuses.append(contentsOf: part) }
            return statuses
        }
        let seconds = Measure.seconds(start, Measure.now())
        let failed = statuses.filter { $0 != 202 }.count
        if failed > 0 { report.broken("\(setup.name) baseline: \(failed) of \(statuses.count) requests did not get 202"); return nil }
        return Double(requestCount * setup.batchSize) / seconds
    }

    /// 100 ms added per request: does the SDK keep up with 5,000 events/s offered? Batches of 500,
    /// 4 in flight (capacity about 4 x 500 / 0.1 s = 20,000 events/s).
    private func slowIngest(folder: URL) async {
        let rate = 5_000.0
        let seconds = options.quick ? 1.0 : 6.0
        let events = Int(rate * seconds)
        let ingest: LocalIngest
        do { ingest = try LocalIngest(configuration: .init(addedLatency: .milliseconds(100))) } catch { report.broken("LocalIngest: \(error)"); return }
        defer { ingest.stop() }
        let client = BenchEvent.makeClient(folder: folder, endpoint: ingest.endpoint, batchSize: 500, inFlight: 4, gzip: true)
        let start = Measure.now()
        var maxBacklog = 0
        for seq in 0..<events {
            let due = start + UInt64(Double(seq) / rate * 1e9)
            var now = Measure.now()
            if now < due {
                maxBacklog = max(maxBacklog, seq - client.counters.delivered)
                while now < due {
                    Measure.sleep(microseconds: Int(min(1_000, (due - now) / 1_000)))
                    now = Measure.now()
                }
            }
            client.track(BenchEvent.name, properties: BenchEvent.properties(seq))
        }
        let offeredEnd = Measure.now()
        let deliveredAtEnd = client.counters.delivered
        await client.flush()
        let arrived = await ingest.waitForEvents(count: events, timeout: .seconds(60))
        let end = Measure.now()
        let counters = client.counters
        await client.shutdown(timeLimit: .seconds(2))
        guard arrived else {
            report.broken("e2e.latency100ms: the ingest counted \(ingest.summary.accepted) of \(events) events; counters \(counters)")
            return
        }
        let offered = Double(events) / Measure.seconds(start, offeredEnd)
        let delivered = Double(events) / Measure.seconds(start, end)
        report.add(Figure(
            "e2e.latency100ms.delivered", delivered, unit: "events/s", baseline: offered,
            target: "keeps up with 5,000/s offered", met: maxBacklog < 5_000 && counters.skippedBacklog == 0,
            note: "batch 500, 4 in flight, gzip; \(events) events over \(Int(seconds)) s; \(deliveredAtEnd) delivered when the last was tracked; the rest after a flush"
        ))
        report.add(Figure(
            "e2e.latency100ms.max_backlog", Double(maxBacklog), unit: "events",
            note: "most events tracked and not yet delivered at once (bounded = keeping up)"
        ))
        report.add(Figure(
            "e2e.latency100ms.drain", Measure.seconds(offeredEnd, end) * 1_000, unit: "ms",
            note: "from the last track() to the ingest counting every event (includes flush)"
        ))
    }
}

/// An inner transport for ``EndToEndBenchmark``'s adapter figure: answers every export 200 at once
/// and keeps the size of the last body.
private final class InstantCollector: Transport {
    private let size = Locked(0)

    var lastBodyCount: Int { size.withLock { $0 } }

    func send(_ request: UploadRequest) async throws -> UploadResponse {
        size.withLock { $0 = request.body.count }
        return UploadResponse(status: 200, body: Data(#"{"partialSuccess":{}}"#.utf8))
    }
}
