#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 5: recovery with a full outbox: the time from `configure` to the first batch ready to
/// send, and what `track()` costs while recovery runs.
///
/// Method: a child process journals 9,999 events with uploads off (199 sealed batches of 50 and a
/// journal of 49) and ends with `_exit`, as a crash would; the last journal file is then cut by
/// 5 bytes (a torn tail). A new client is configured on the folder against `LocalIngest`.
/// "Ready" is when `counters.recovered` becomes non-zero, which the journal sets at the end of
/// recovery, right before it tells the uploader that batches are available (a thread polls it);
/// the time to the first request answered by the ingest is reported too. Meanwhile another
/// thread calls `track()` every 20 µs and times each call.

struct RecoveryBenchmark {
    let options: Options
    let report: Report
    private static let events = 9_999

    func run() async {
        var ready: [Double] = []
        var firstRequest: [Double] = []
        var configureCall: [Double] = []
        var trackSamples: [UInt32] = []
        for _ in 0..<(options.quick ? 1 : 3) {
            guard let result = await once() else { return }
            ready.append(result.ready)
            firstRequest.append(result.firstRequest)
            configureCall.append(result.configure)
            trackSamples += result.track
        }
        report.add(Figure.ofRuns(
            "recovery.ready", ready, unit: "ms", target: "<= 100 ms", met: { $0 <= 100 },
            note: "configure -> counters.recovered set (batches announced to the uploader); 9,950 events in 199 batches + a torn journal of 49"
        ))
        report.add(Figure.ofRuns("recovery.first_request", firstRequest, unit: "ms", note: "configure -> first request answered by LocalIngest"))
        report.add(Figure.ofRuns("recovery.configure_call", configureCall, unit: "ms", note: "the configure() call itself"))
        let sorted = trackSamples.sorted()
        for (label, q) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
            report.add(Figure(
                "recovery.track.\(label)", Measure.quantile(sorted: sorted, q), unit: "ns",
                note: "\(trackSamples.count) track() calls made while recovery ran, one per 20 us"
            ))
        }
    }

    private struct Result {
        var ready: Double
        var firstRequest: Double
        var configure: Double
        var track: [UInt32]
    }

    private func once() async -> Result? {
        guard let folder = try? TemporaryFolder("recovery") else { report.broken("could not make a temporary folder"); return nil }
        defer { folder.remove() }
        let ingest: LocalIngest
        do { ingest = try LocalIngest() } catch { report.broken("LocalIngest: \(error)"); return nil }
        defer { ingest.stop() }
        // The child journals for this ingest's endpoint: an area records it, and only a client
        // with the same one recovers the area (issue 23).
        guard ChildProcess.spawn(["prepare-outbox", folder.path, String(Self.events), String(ingest.port)], report: report) != nil else { return nil }
        let journals = folder.files().filter { $0.path.contains("/journal-") && $0.path.hasSuffix(".log") }.sorted { $0.path < $1.path }
        guard let last = journals.last, last.size > 5 else { report.broken("recovery: the child left no journal"); return nil }
        _ = truncate(last.path, off_t(last.size - 5))

        let client = BenchEvent.newClient(uploads: true)
        let configuration = BenchEvent.configuration(folder: folder.url, endpoint: ingest.endpoint)
        let stop = Locked(false)
        let start = Measure.now()
        client.configure(configuration)
        let configured = Measure.now()
        let watcher = Measure.startThread("recovery-watcher") { () -> UInt64 in
            let deadline = Measure.now() + 30_000_000_000
            while client.counters.recovered == 0 && Measure.now() < deadline { sched_yield() }
            return Measure.now()
        }
        let tracker = Measure.startThread("recovery-tracker") { () -> [UInt32] in
            var samples: [UInt32] = []
            var seq = 0
            var next = Measure.now()
            while !stop.withLock({ $0 }) {
                while Measure.now() < next { sched_yield() }
                next += 20_000
                let properties = BenchEvent.properties(seq)
                let before = Measure.now()
                client.track(BenchEvent.name, properties: properties)
                let after = Measure.now()
                samples.append(UInt32(clamping: after &- before))
                seq += 1
            }
            return samples
        }
        let readyAt = watcher.wait()
        stop.withLock { $0 = true }
        let samples = tracker.wait()
        let sent = await ingest.waitForRequests(count: 1, timeout: .seconds(30))
        let firstAt = Measure.now()
        let recovered = client.counters.recovered
        await client.shutdown(timeLimit: .seconds(1))
        guard sent else { report.broken("recovery: no request reached the ingest"); return nil }
        if recovered != Self.events - 1 {
            report.note("recovery: recovered \(recovered) events, expected \(Self.events - 1) (one torn record)")
        }
        return Result(
            ready: Double(readyAt - start) / 1e6, firstRequest: Double(firstAt - start) / 1e6,
            configure: Double(configured - start) / 1e6, track: samples
        )
    }
}
