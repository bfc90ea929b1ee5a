#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 3: the loss window, the time from `track()` returning to the event being written to the
/// journal file (what `kill -9` would lose), at a paced offered rate.
///
/// Method: the producer paces calls on an absolute schedule and records when each `track()`
/// returned; every event carries an id holding its index (`track(_:properties:eventID:)`). A
/// dedicated thread blocks in `blockUntilJournaled(atLeast: seen + 1)`, and on each wake reads
/// `journalWatermark.latestEventID`: every event up to that index is in the file at that moment.
/// The wake-up of that thread is included, so the figures overstate the window slightly.

struct LossWindowBenchmark {
    let options: Options
    let report: Report
    /// The figures' name prefix (`loss`); the middleware benchmark measures under its own.
    var prefix = "loss"
    /// The client's middleware (none for the loss figures themselves).
    var middleware: [EventMiddleware] = []
    /// Whether to add `<prefix>.<rate>k.track.p50`, the cost of each paced `track()` call.
    var reportsTrackCost = false

    func run() async {
        guard let folder = try? TemporaryFolder("loss") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        for rate in [10_000, 100_000] {
            await measure(rate: rate, folder: folder.url.appendingPathComponent("\(rate)"))
        }
        if prefix == "loss" { await measureWithIntakeLog(rate: 100_000, folder: folder.url.appendingPathComponent("log")) }
    }

    /// The window with the intake log (`keepsIntakeLog`): a returned call is in the log unless the
    /// log was full, so what a kill could cost at any moment is the calls taken unlogged. Counted,
    /// not assumed: 0 unless the journal fell a whole log behind.
    func measureWithIntakeLog(rate: Int, folder: URL) async {
        let seconds = options.quick ? 0.3 : 3.0
        let count = Int(Double(rate) * seconds)
        let client = BenchEvent.makeClient(folder: folder, intakeLog: true)
        await client.waitUntilIntakeLogSettled()
        Self.paced(rate: rate, count: count) { index, _ in client.track(BenchEvent.name, properties: BenchEvent.properties(index)) }
        let unlogged = client.unloggedIntakeCalls
        let skipped = client.counters.skippedBacklog
        let logged = client.hasIntakeLog
        await client.shutdown(timeLimit: .seconds(2))
        guard logged else { report.broken("loss with the intake log: no log was made"); return }
        report.add(Figure(
            "loss.\(rate / 1_000)k.intakelog.unlogged", Double(unlogged), unit: "calls",
            target: "0", met: unlogged == 0,
            note: "\(count) calls at \(rate)/s with keepsIntakeLog; calls taken while the log was full (the only ones a kill could cost); \(skipped) skipped by the backlog"
        ))
    }

    /// Calls `call(index, now)` `count` times on an absolute schedule of `rate` a second,
    /// sleeping (or yielding, when the next call is near) while ahead of it.
    static func paced(rate: Int, count: Int, _ call: (_ index: Int, _ now: UInt64) -> Void) {
        let interval = 1e9 / Double(rate)
        let start = Measure.now()
        var index = 0
        while index < count {
            let due = start + UInt64(Double(index) * interval)
            let now = Measure.now()
            if now < due {
                if due - now > 200_000 { Measure.sleep(microseconds: Int((due - now) / 1_000) - 100) } else { sched_yield() }
                continue
            }
            call(index, now)
            index += 1
        }
    }

    func measure(rate: Int, folder: URL) async {
        let seconds = options.quick ? 0.3 : 3.0
        let count = Int(Double(rate) * seconds)
        let client = BenchEvent.makeClient(folder: folder, middleware: middleware)
        let tag = UInt64.random(in: 1...UInt64.max)
        let watcher = Measure.startThread("loss-watcher") { () -> [UInt64] in
            var seen = [UInt64](repeating: 0, count: count)
            var next = 0
            var written = 0
            let deadline = Measure.now() + UInt64((seconds + 10) * 1e9)
            while next < count && Measure.now() < deadline {
                _ = client.blockUntilJournaled(atLeast: written + 1, timeout: .milliseconds(100))
                let now = Measure.now()
                let mark = client.journalWatermark
                written = mark.eventsWritten
                guard let latest = mark.latestEventID else { continue }
                let index = BenchEvent.index(of: latest)
                guard index >= next, index < count else { continue }
                for position in next...index { seen[position] = now }
                next = index + 1
            }
            return seen
        }
        var returned = [UInt64](repeating: 0, count: count)
        var costs = [UInt64](repeating: 0, count: reportsTrackCost ? count : 0)
        let start = Measure.now()
        Self.paced(rate: rate, count: count) { index, now in
            client.track(BenchEvent.name, properties: BenchEvent.properties(index), eventID: BenchEvent.indexedID(tag: tag, index: index))
            returned[index] = Measure.now()
            if reportsTrackCost { costs[index] = returned[index] - now }
        }
        let offered = Double(count) / Measure.seconds(start, Measure.now())
        let seen = watcher.wait()
        let skipped = client.counters.skippedBacklog
        await client.shutdown(timeLimit: .seconds(2))

        var windows: [UInt64] = []
        windows.reserveCapacity(count)
        var unseen = 0
        for position in 0..<count {
            guard seen[position] > 0 else { unseen += 1; continue }
            windows.append(seen[position] > returned[position] ? seen[position] - returned[position] : 0)
        }
        let dropped = client.counters.droppedByMiddleware
        if unseen > skipped + dropped {
            report.broken("\(prefix) at \(rate)/s: \(unseen) events never reached the journal, \(skipped) skipped, \(dropped) dropped by a step")
        }
        if reportsTrackCost {
            let sorted = costs.sorted()
            report.add(Figure("\(prefix).\(rate / 1_000)k.track.p50", Measure.quantile(sorted: sorted, 0.5), unit: "ns", note: "each paced call, clock reads included"))
        }
        let sorted = windows.sorted()
        let segments = 3
        let segmentSize = max(1, windows.count / segments)
        let perSegment = stride(from: 0, to: windows.count, by: segmentSize).map { Array(windows[$0..<min($0 + segmentSize, windows.count)]).sorted() }
        for (label, q) in [("p50", 0.5), ("p99", 0.99)] {
            let value = Measure.quantile(sorted: sorted, q) / 1e6
            let values = perSegment.map { Measure.quantile(sorted: $0, q) / 1e6 }
            report.add(Figure(
                "\(prefix).\(rate / 1_000)k.\(label)", value, unit: "ms", runs: values.count, min: values.min(), max: values.max(),
                target: label == "p99" && prefix == "loss" ? "<= 5 ms" : nil, met: label == "p99" && prefix == "loss" ? value <= 5 : nil,
                note: String(format: "%d events at %.0f/s offered; %d skipped by the backlog", count, offered, skipped)
            ))
        }
    }
}
