import Foundation
import SimpleDataLogs

/// Issue 16: what event middleware costs: per event on the stages thread, and at 100,000 events
/// a second offered.
///
/// `middleware.chain.ns` is the chain alone, on one thread: fresh events (as the identity stage
/// owns them) run through the three-step chain, less the same loop without it, per event. It is
/// the figure to read on a loaded machine: the paced arms below share 2 cores with everything.
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

    /// The three-step chain's cost per event, on this thread, against the same loop without it.
    func chainCost() {
        let chain = MiddlewareChain(steps: Self.threeSteps)
        let count = options.quick ? 200_000 : 2_000_000
        let id = UUID()
        func loop(_ withChain: Bool) -> Double {
            var kept = 0
            let start = Measure.now()
            for index in 0..<count {
                var event = Event.live(name: BenchEvent.name, id: id, timestamp: 1_796_205_600_000, properties: BenchEvent.properties(index))
                if !withChain || chain.run(&event) == .kept { kept += 1 }
                withExtendedLifetime(event) {}
            }
            if kept != count { report.broken("middleware: the chain dropped \(count - kept) events it should keep") }
            return Double(Measure.now() - start) / Double(count)
        }
        var plain: [Double] = []
        var chained: [Double] = []
        for _ in 0..<3 {
            plain.append(loop(false))
            chained.append(loop(true))
        }
        let cost = zip(chained, plain).map { $0 - $1 }
        report.add(Figure.ofRuns(
            "middleware.chain.ns", cost, unit: "ns",
            note: String(format: "three steps per event on one thread; building the event alone %.0f ns", Measure.median(plain))
        ))
    }

    /// A step that spins for `microseconds` per event: what a slow enricher looks like.
    static func slow(microseconds: UInt64) -> EventMiddleware {
        EventMiddleware("slow") { _ in
            let end = Measure.now() + microseconds * 1_000
            while Measure.now() < end {}
            return .keep
        }
    }

    func run() async {
        chainCost()
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
