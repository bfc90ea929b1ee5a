import Foundation
import SimpleDataLogs

/// Issue 16: what event middleware costs, at 100,000 events a second offered.
///
/// The loss-window method (``LossWindowBenchmark``) with three arms in one run: no middleware, a
/// three-step chain (enrich two properties, scrub one key, drop by a name predicate that keeps
/// them all), and that chain with a fourth step that burns 2 µs per event (a slow enricher). The
/// steps run on the stages thread, so their cost must show in the time to the journal (the loss
/// window) and not in `track()`: `middleware.<arm>.100k.track.p50` should not move with the
/// chain, `middleware.<arm>.100k.p99` may. Compare the arms' ratios, never absolute times.
struct MiddlewareBenchmark {
    let options: Options
    let report: Report

    static let threeSteps: [EventMiddleware] = [
        .enrich("build") { _ in ["build": "2026.12.1", "region": "eu"] },
        .scrub("no personal data", keys: ["email"]),
        .drop("no debug events") { $0.name.hasPrefix("debug_") },
    ]

    /// A step that spins for `microseconds` per event: what a slow enricher looks like.
    static func slow(microseconds: UInt64) -> EventMiddleware {
        EventMiddleware("slow") { _ in
            let end = Measure.now() + microseconds * 1_000
            while Measure.now() < end {}
            return .keep
        }
    }

    func run() async {
        guard let folder = try? TemporaryFolder("middleware") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        let arms: [(String, [EventMiddleware])] = [
            ("none", []), ("three-steps", Self.threeSteps), ("three-steps-slow", Self.threeSteps + [Self.slow(microseconds: 2)]),
        ]
        for (label, steps) in arms {
            let arm = LossWindowBenchmark(options: options, report: report, prefix: "middleware.\(label)", middleware: steps, reportsTrackCost: true)
            await arm.measure(rate: 100_000, folder: folder.url.appendingPathComponent(label))
        }
    }
}
