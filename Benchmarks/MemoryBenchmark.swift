import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 6: peak resident memory growth over the idle process (`VmHWM` minus `VmRSS` at idle,
/// from `/proc/self/status`, in a fresh child process each) while 1,000,000 events are offered
/// as fast as possible with the ingest down, and when starting with 10,000 events waiting on disk.

struct MemoryBenchmark {
    let options: Options
    let report: Report

    func run() async {
        guard let folder = try? TemporaryFolder("memory") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        // A port that refuses connections: bound by a LocalIngest, then closed.
        guard let dead = try? LocalIngest() else { report.broken("LocalIngest did not start"); return }
        let port = dead.port
        dead.stop()

        let events = options.quick ? 100_000 : 1_000_000
        let outbox = folder.path + "/outbox"
        if let offer = ChildProcess.spawn(["memory-offer", outbox, String(events), String(port)], report: report),
           let idle = offer["idle"], let peak = offer["peak"] {
            let growth = (peak - idle) / 1_000_000
            report.add(Figure(
                "memory.offer_ingest_down", growth, unit: "MB", target: "<= 16 MB", met: growth <= 16,
                note: String(
                    format: "%.0f events offered in %.2f s, %.0f skipped by the backlog, %.0f evicted by the caps, %.0f on disk; idle %.1f MB, peak %.1f MB",
                    offer["tracked"] ?? 0, offer["offerSeconds"] ?? 0, offer["skipped"] ?? 0, offer["evicted"] ?? 0,
                    offer["onDisk"] ?? 0, idle / 1e6, peak / 1e6
                )
            ))
        }
        if let waiting = ChildProcess.spawn(["memory-waiting", outbox, String(port)], report: report),
           let idle = waiting["idle"], let peak = waiting["peak"] {
            let growth = (peak - idle) / 1_000_000
            report.add(Figure(
                "memory.waiting_on_disk", growth, unit: "MB", target: "<= 16 MB", met: growth <= 16,
                note: String(
                    format: "started on the outbox left above: %.0f events recovered, ingest down for 2 s; idle %.1f MB, peak %.1f MB",
                    waiting["recovered"] ?? 0, idle / 1e6, peak / 1e6
                )
            ))
        }
    }
}
