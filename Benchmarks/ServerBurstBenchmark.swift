import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 8: a server-sized burst. 50,000 events (10,000 with `--quick`) from 1,000 concurrent
/// tasks, each in a fresh child process against a `LocalIngest` in this one, measuring the peak
/// resident memory growth over the idle process (`VmHWM`), the time to track the burst, and the
/// drain time (until `flush()` returns with every event acknowledged by the ingest).
///
/// Three setups in one run, so they compare by ratio: the server profile with plain `track()`;
/// the app limits (5,000-event backlog, 10,000-event outbox) with the same batches and requests in
/// flight, which is where a burst used to be lost; and the app limits with the waiting form of
/// `track`, which trades the loss for time.
struct ServerBurstBenchmark {
    let options: Options
    let report: Report

    enum Mode: String, CaseIterable {
        case serverProfile = "server-profile"
        case appLimits = "app-limits"
        case appLimitsWaiting = "app-limits-waiting"
    }

    func run() async {
        guard let folder = try? TemporaryFolder("burst") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        let events = options.quick ? 10_000 : 50_000
        var drains: [Mode: Double] = [:]
        for mode in Mode.allCases {
            guard let ingest = try? LocalIngest() else { report.broken("LocalIngest did not start"); return }
            defer { ingest.stop() }
            let outbox = folder.path + "/" + mode.rawValue
            guard let result = ChildProcess.spawn(["server-burst", mode.rawValue, outbox, String(ingest.port), String(events)], report: report),
                  let idle = result["idle"], let peak = result["peak"], let drain = result["drainSeconds"] else { continue }
            drains[mode] = drain
            // The server profile's completeness receipt at shutdown is the SDK's, not the burst's.
            let received = ingest.receivedEvents.filter { $0.name != "delivery_receipt" }.count
            if mode == .serverProfile && received != events {
                report.broken("\(mode.rawValue): the ingest counted \(received) of \(events) events")
            }
            report.add(Figure(
                "burst.\(mode.rawValue).memory", (peak - idle) / 1_000_000, unit: "MB",
                note: String(format: "peak growth over the idle process (idle %.1f MB, peak %.1f MB)", idle / 1e6, peak / 1e6)
            ))
            report.add(Figure(
                "burst.\(mode.rawValue).drain", drain, unit: "s",
                baseline: mode == .serverProfile ? nil : drains[.serverProfile],
                note: String(
                    format: "%d events from 1,000 tasks tracked in %.3f s; skipped %.0f, evicted %.0f, delivered %.0f (the ingest counted %d)%@",
                    events, result["trackSeconds"] ?? 0, result["skipped"] ?? 0, result["evicted"] ?? 0, result["delivered"] ?? 0, received,
                    mode == .serverProfile ? "" : "; baseline: the server profile's drain"
                )
            ))
        }
    }

    /// The child's side: `server-burst <mode> <folder> <port> <events>`.
    static func child(_ arguments: [String], idle: Int) async -> Int32 {
        guard arguments.count == 4, let mode = Mode(rawValue: arguments[0]), let port = Int(arguments[2]), let events = Int(arguments[3]) else { return 2 }
        let client = BenchEvent.newClient(uploads: true)
        var configuration = SimpleDataLogsClient.Configuration.server(
            ingestKey: BenchEvent.ingestKey, endpoint: URL(string: "http://127.0.0.1:\(port)")!,
            storageDirectory: URL(fileURLWithPath: arguments[1])
        )
        if mode != .serverProfile { configuration.limits = .standard }
        client.configure(configuration)
        let tasks = 1_000
        let perTask = events / tasks
        let start = Measure.now()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for step in 0..<perTask {
                        let seq = task * perTask + step
                        if mode == .appLimitsWaiting {
                            await client.track(BenchEvent.name, properties: BenchEvent.properties(seq), deviceID: "device-\(task)", waitingUpTo: .seconds(60))
                        } else {
                            client.track(BenchEvent.name, properties: BenchEvent.properties(seq), deviceID: "device-\(task)")
                        }
                    }
                }
            }
        }
        let tracked = Measure.now()
        await client.flush()
        let drained = Measure.now()
        let counters = client.counters
        writeStandardOutput(
            "{\"idle\":\(idle),\"peak\":\(ProcessMemory.peakResident),"
                + "\"trackSeconds\":\(Measure.seconds(start, tracked)),\"drainSeconds\":\(Measure.seconds(start, drained)),"
                + "\"skipped\":\(counters.skippedBacklog),\"evicted\":\(counters.evictedByCaps),\"delivered\":\(counters.delivered)}\n"
        )
        await client.shutdown()
        return 0
    }
}
