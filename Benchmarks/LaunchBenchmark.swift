#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Launch on a large outbox (issue 23, item 7): the time from `configure` to the first request
/// answered by the ingest, with 10,000 and 100,000 batch files left by dead processes.
///
/// Method: the batch files are written straight into dead areas of 5,000 files each (what the
/// server profile allows per area; a server that crashes in a loop leaves one such area per run),
/// one small event per file, with no lock held, so launch adopts every area, takes stock of every
/// file, queues them and feeds the uploader. The client has the server profile's batch size and
/// requests in flight, and two limits of caps: the server profile's (5,000 files: the rest is
/// evicted after the stock-taking) and caps raised past the file count (every batch queued for the
/// uploader), which is the harder case for the queue and the feed. Until issue 23 the queue, the
/// uploader's copy of it and the adoption were quadratic: 16,000 files took 7.5 s, 100,000 more than
/// five minutes.
struct LaunchBenchmark {
    let options: Options
    let report: Report
    static let filesPerArea = 5_000

    func run() async {
        // `--calls N` launches on N files only (a profiling run).
        let sizes = options.calls.map { [$0] } ?? (options.quick ? [2_000] : [10_000, 100_000])
        for files in sizes {
            for capped in [true, false] {
                guard let seconds = await once(files: files, serverCaps: capped) else { return }
                let label = files >= 1_000 ? "\(files / 1_000)k" : "\(files)"
                report.add(Figure(
                    "launch.first_request.\(label).\(capped ? "server_caps" : "raised_caps")", seconds * 1_000, unit: "ms",
                    target: files >= 100_000 ? "<= 5000 ms" : nil, met: files >= 100_000 ? seconds <= 5 : nil,
                    note: "configure -> first request answered; \(files) one-event batch files in dead areas of \(Self.filesPerArea); "
                        + (capped ? "server caps (5,000 files kept)" : "caps raised past the file count (all queued)")
                ))
            }
        }
    }

    private func once(files: Int, serverCaps: Bool) async -> Double? {
        guard let folder = try? TemporaryFolder("launch") else { report.broken("could not make a temporary folder"); return nil }
        defer { folder.remove() }
        guard Self.prepare(root: folder.path, files: files) else { report.broken("launch: could not write \(files) batch files"); return nil }
        // The files are written: drop nothing from the page cache (a warm launch, as after a crash
        // loop), but let the writeback settle so it does not compete with the launch.
        sync()

        let ingest: LocalIngest
        do { ingest = try LocalIngest() } catch { report.broken("LocalIngest: \(error)"); return nil }
        defer { ingest.stop() }
        let client = BenchEvent.newClient(uploads: true)
        var configuration = SimpleDataLogsClient.Configuration.server(
            ingestKey: BenchEvent.ingestKey, endpoint: ingest.endpoint, storageDirectory: folder.url
        )
        configuration.logLevel = .warning
        if !serverCaps { configuration.limits.outboxFiles = files * 2 }
        let start = Measure.now()
        client.configure(configuration)
        let sent = await ingest.waitForRequests(count: 1, timeout: .seconds(600))
        let first = Measure.now()
        let recovered = client.counters.recovered
        await client.shutdown(timeLimit: .zero)
        guard sent else { report.broken("launch: no request reached the ingest within 10 minutes (\(files) files)"); return nil }
        if recovered != files { report.note("launch: recovered \(recovered) events of \(files)") }
        return Measure.seconds(start, first)
    }

    /// Writes `files` batch files of one event each into dead areas of ``filesPerArea``.
    static func prepare(root: String, files: Int) -> Bool {
        let layout = OutboxLayout(root: root)
        var written = 0
        var areaNumber = 0
        while written < files {
            let area = layout.area("a\(areaNumber)")
            for folder in [layout.areasFolder, area.folder, area.batchesFolder] where mkdir(folder, 0o700) != 0 && errno != EEXIST {
                return false
            }
            for sequence in 1...min(filesPerArea, files - written) {
                let id = UUID()
                let payload = Array(#"{"event":"Bench Event","event_id":"\#(UUID().uuidString.lowercased())","ts":1764669999001,"props":{"seq":\#(written)}}"#.utf8)
                let bytes = BatchFile.encode(SealedBatch(id: id, sequence: sequence, path: "r", payloads: [payload]))
                let name = String(repeating: "0", count: 12 - String(sequence).count) + String(sequence) + "-r-" + id.uuidString.lowercased() + ".batch"
                let descriptor = open(area.batchesFolder + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { return false }
                let done = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
                close(descriptor)
                guard done else { return false }
                written += 1
            }
            areaNumber += 1
        }
        return true
    }
}
