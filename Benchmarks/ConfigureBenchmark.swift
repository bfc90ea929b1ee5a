import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// What `configure` costs the caller's thread, with the intake log (which it makes: `open`,
/// `flock`, `posix_fallocate` of 4 MiB, `mmap`) and without, alternated in one run over fresh
/// folders, so the difference is the log's making (decision 0043). Each client is shut down and
/// its folder removed before the next.
struct ConfigureBenchmark {
    let options: Options
    let report: Report

    func run() async {
        guard let folder = try? TemporaryFolder("configure") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        let rounds = options.quick ? 10 : 40
        var with: [Double] = []
        var without: [Double] = []
        for round in 0..<rounds {
            for keepsLog in [round % 2 == 0, round % 2 != 0] {
                let place = folder.url.appendingPathComponent("\(round)-\(keepsLog)")
                let client = BenchEvent.newClient(uploads: false, intakeLog: keepsLog)
                let configuration = BenchEvent.configuration(folder: place)
                let start = Measure.now()
                client.configure(configuration)
                let elapsed = Double(Measure.now() - start) / 1_000
                if keepsLog, !client.hasIntakeLog { report.broken("configure: no intake log was made"); return }
                if keepsLog { with.append(elapsed) } else { without.append(elapsed) }
                await client.shutdown(timeLimit: .seconds(2))
                try? FileManager.default.removeItem(at: place)
            }
        }
        let baseline = Measure.median(without)
        report.add(Figure.ofRuns("configure.p50", without, unit: "µs", note: "the whole configure call on a fresh folder, no intake log; median of \(rounds)"))
        report.add(Figure.ofRuns(
            "configure.intakelog.p50", with, unit: "µs", baseline: baseline,
            note: "the same with keepsIntakeLog: configure makes the log on the caller's thread; median of \(rounds), alternated with the figure above"
        ))
    }
}
