import Foundation
import SimpleDataLogs

/// `--only profile`: a fixed number of events (`--calls N`, default 100,000) from `track()` into
/// the journal, uploads off, batches of 50, paced so that none is skipped. Not part of a full
/// run: it is the target for `valgrind --tool=callgrind --separate-threads=yes`, whose per-thread
/// totals divided by N give the instructions per event on each thread (the caller's, the
/// stages', the outbox's, the sealer's). Its one figure is the rate, for orientation only.
struct PipelineProfileBenchmark {
    let options: Options
    let report: Report

    func run() async {
        guard let folder = try? TemporaryFolder("profile") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        let count = options.calls ?? 100_000
        let client = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("outbox"), batchSize: 50)
        let start = Measure.now()
        BenchEvent.trackPaced(client, first: 0, count: count)
        guard client.blockBenchmarkThreadUntilJournaled(atLeast: count, timeout: .seconds(120)) else {
            report.broken("profile: the journal did not reach \(count) events")
            return
        }
        let seconds = Measure.seconds(start, Measure.now())
        await client.shutdown(timeLimit: .seconds(2))
        report.add(Figure.ofRuns(
            "profile.events_per_s", [Double(count) / seconds], unit: "events/s",
            note: "\(count) events, batches of 50, uploads off: the callgrind target"
        ))
    }
}
