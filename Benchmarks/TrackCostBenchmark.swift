import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 1: what `track()` costs its caller, per call, against stamping an id and a time and
/// appending the same event to an array under the SDK's own lock (`Locked`).
///
/// Method: `clock_gettime(CLOCK_MONOTONIC)` read around every call (each sample includes one
/// reading, reported as `track.timer_overhead`); the properties are built before the first
/// reading. "Accepted" runs are paced in rounds of 4,000 calls (8 × 500 for 8 tasks) and wait for
/// the journal between rounds, outside the timed calls, so the 5,000-event backlog never skips
/// one (checked with `counters.skippedBacklog`). The "flat-out" run offers calls back to back,
/// so most are skipped; it reports the skipped count and the cost of the mix.

struct TrackCostBenchmark {
    let options: Options
    let report: Report

    private var calls: Int { options.calls ?? (options.quick ? 50_000 : 1_000_000) }
    private static let roundSize = 4_000
    private static let tasks = 8
    private static let segments = 5

    func run() async {
        let overhead = Measure.timerOverhead()
        report.add(Figure("track.timer_overhead", overhead, unit: "ns", note: "one clock_gettime(CLOCK_MONOTONIC) reading, included in every per-call sample"))

        let baseline1 = baselineOneTask()
        let baseline8 = await baselineEightTasks()
        guard let folder = try? TemporaryFolder("track") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }

        // 1 task, accepted calls only, without the intake log: the baseline of issue 25's bar
        // (the log is on by default since decision 0045; `track.1task.intakelog` is the default).
        let client1 = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("one"), intakeLog: false)
        let sdk1 = pacedOneTask(client1)
        let skipped1 = client1.counters.skippedBacklog
        await client1.shutdown(timeLimit: .seconds(2))
        addPercentiles("track.1task", sdk1, baseline: baseline1, note: "without the intake log (keepsIntakeLog = false); accepted calls, paced in rounds of \(Self.roundSize); skipped \(skipped1)")
        if skipped1 > 0 { report.note("track.1task: \(skipped1) calls were skipped by the backlog bound") }

        // The same with the intake log (issue 25; `keepsIntakeLog`, on by default): what the log
        // adds to each call, same run.
        let client1Log = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("one-log"), intakeLog: true)
        let sdk1Log = pacedOneTask(client1Log)
        await client1Log.shutdown(timeLimit: .seconds(2))
        addPercentiles("track.1task.intakelog", sdk1Log, baseline: baseline1, note: "as track.1task, with the intake log (keepsIntakeLog)")
        for (label, q) in [("p50", 0.5), ("p99", 0.99)] {
            let withLog = Measure.quantile(sorted: sdk1Log.sorted(), q)
            let without = Measure.quantile(sorted: sdk1.sorted(), q)
            report.add(Figure(
                "track.1task.intakelog_over_default.\(label)", withLog / max(without, 1), unit: "x",
                target: label == "p50" ? "<= 1.3" : nil, met: label == "p50" ? withLog <= 1.3 * without : nil,
                note: "track.1task.intakelog.\(label) / track.1task.\(label), same run (issue 25's bar for turning it on by default)"
            ))
        }

        // 8 tasks, accepted calls only.
        let client8 = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("eight"), intakeLog: false)
        let sdk8 = await pacedEightTasks(client8)
        let skipped8 = client8.counters.skippedBacklog
        await client8.shutdown(timeLimit: .seconds(2))
        addPercentiles("track.8tasks", sdk8, baseline: baseline8, note: "without the intake log; accepted calls from 8 concurrent tasks on the 2-thread pool, rounds of 8 x 500; skipped \(skipped8)")

        // The same with the intake log: the eight tasks append under the one intake lock.
        let client8Log = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("eight-log"), intakeLog: true)
        let sdk8Log = await pacedEightTasks(client8Log)
        let skipped8Log = client8Log.counters.skippedBacklog
        await client8Log.shutdown(timeLimit: .seconds(2))
        addPercentiles("track.8tasks.intakelog", sdk8Log, baseline: baseline8, note: "as track.8tasks, with the intake log (keepsIntakeLog); skipped \(skipped8Log)")

        // Flat out: most calls are skipped by the backlog bound.
        let clientFlat = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("flat"))
        let flat = flatOut(clientFlat)
        let counters = clientFlat.counters
        await clientFlat.shutdown(timeLimit: .seconds(2))
        addPercentiles("track.flatout.1task", flat, baseline: baseline1, note: "back to back, the default (the intake log on); \(counters.skippedBacklog) of \(counters.tracked) skipped by the 5,000 backlog")
        report.add(Figure(
            "track.flatout.1task.skipped", Double(counters.skippedBacklog), unit: "calls",
            note: "of \(counters.tracked) calls offered back to back; counters.skippedBacklog"
        ))
    }

    // MARK: The SDK

    private func pacedOneTask(_ client: SimpleDataLogsClient) -> [UInt32] {
        var samples = [UInt32](repeating: 0, count: calls)
        // Warm-up round, not recorded.
        BenchEvent.trackPaced(client, first: 0, count: Self.roundSize)
        var seq = Self.roundSize
        var done = 0
        while done < calls {
            _ = client.blockUntilJournaled(atLeast: seq, timeout: .seconds(30))
            let count = min(Self.roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                client.track(BenchEvent.name, properties: properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        _ = client.blockUntilJournaled(atLeast: seq, timeout: .seconds(30))
        return samples
    }

    private func pacedEightTasks(_ client: SimpleDataLogsClient) async -> [UInt32] {
        let perTask = Self.roundSize / Self.tasks
        let rounds = (calls + Self.roundSize - 1) / Self.roundSize
        var samples: [UInt32] = []
        samples.reserveCapacity(rounds * Self.roundSize)
        var sent = 0
        for round in -1..<rounds {
            await waitUntilJournaled(client, sent)
            let parts = await withTaskGroup(of: [UInt32].self) { group in
                for task in 0..<Self.tasks {
                    let first = sent + task * perTask
                    group.addTask {
                        var part = [UInt32](repeating: 0, count: perTask)
                        for index in 0..<perTask {
                            let properties = BenchEvent.properties(first + index)
                            let start = Measure.now()
                            client.track(BenchEvent.name, properties: properties)
                            let end = Measure.now()
                            part[index] = UInt32(clamping: end &- start)
                        }
                        return part
                    }
                }
                var parts: [[UInt32]] = []
                for await part in group { parts.append(part) }
                return parts
            }
            sent += Self.tasks * perTask
            if round >= 0 { for part in parts { samples.append(contentsOf: part) } }
        }
        await waitUntilJournaled(client, sent)
        return samples
    }

    private func waitUntilJournaled(_ client: SimpleDataLogsClient, _ count: Int) async {
        let deadline = Measure.now() + 30_000_000_000
        while client.journalWatermark.eventsWritten < count && Measure.now() < deadline {
            try? await Task.sleep(for: .microseconds(200))
        }
    }

    private func flatOut(_ client: SimpleDataLogsClient) -> [UInt32] {
        var samples = [UInt32](repeating: 0, count: calls)
        for index in 0..<calls {
            let properties = BenchEvent.properties(index)
            let start = Measure.now()
            client.track(BenchEvent.name, properties: properties)
            let end = Measure.now()
            samples[index] = UInt32(clamping: end &- start)
        }
        return samples
    }

    // MARK: The baseline: stamp an id and a time, append under `Locked`

    /// What the baseline keeps: the same fields `track()` stamps.
    private struct StampedEvent: Sendable {
        var name: String
        var id: UUID
        var timestamp: Int64
        var properties: [String: PropertyValue]
    }

    private struct BaselineState: Sendable {
        var events: [StampedEvent] = []
        var ids = EventIDGenerator()
    }

    private func baselineOneTask() -> [UInt32] {
        let state = Locked(BaselineState())
        let wallClock = SystemWallClock()
        var samples = [UInt32](repeating: 0, count: calls)
        var done = 0
        var seq = 0
        while done < calls {
            // Between rounds the array is emptied outside the timed calls, as the SDK's stage drains.
            state.withLock { $0.events.removeAll(keepingCapacity: true) }
            let count = min(Self.roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                Self.baselineTrack(state, wallClock, properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        return samples
    }

    private func baselineEightTasks() async -> [UInt32] {
        let state = Locked(BaselineState())
        let wallClock = SystemWallClock()
        let perTask = Self.roundSize / Self.tasks
        let rounds = (calls + Self.roundSize - 1) / Self.roundSize
        var samples: [UInt32] = []
        samples.reserveCapacity(rounds * Self.roundSize)
        for round in 0..<rounds {
            state.withLock { $0.events.removeAll(keepingCapacity: true) }
            let parts = await withTaskGroup(of: [UInt32].self) { group in
                for task in 0..<Self.tasks {
                    let first = round * Self.roundSize + task * perTask
                    group.addTask {
                        var part = [UInt32](repeating: 0, count: perTask)
                        for index in 0..<perTask {
                            let properties = BenchEvent.properties(first + index)
                            let start = Measure.now()
                            Self.baselineTrack(state, wallClock, properties)
                            let end = Measure.now()
                            part[index] = UInt32(clamping: end &- start)
                        }
                        return part
                    }
                }
                var parts: [[UInt32]] = []
                for await part in group { parts.append(part) }
                return parts
            }
            for part in parts { samples.append(contentsOf: part) }
        }
        return samples
    }

    @inline(never)
    private nonisolated static func baselineTrack(_ state: Locked<BaselineState>, _ wallClock: SystemWallClock, _ properties: [String: PropertyValue]) {
        let now = wallClock.nowMilliseconds
        state.withLock { state in
            let id = state.ids.next(milliseconds: now)
            state.events.append(StampedEvent(name: BenchEvent.name, id: id, timestamp: now, properties: properties))
        }
    }

    // MARK: Figures

    /// p50 and p99 over all samples; min and max over 5 equal segments of the run.
    private func addPercentiles(_ name: String, _ samples: [UInt32], baseline: [UInt32], note: String) {
        let sortedBaseline = baseline.sorted()
        let segmentSize = max(1, samples.count / Self.segments)
        let segments = stride(from: 0, to: samples.count, by: segmentSize).map { Array(samples[$0..<min($0 + segmentSize, samples.count)]).sorted() }
        let sorted = samples.sorted()
        for (label, q, target) in [("p50", 0.5, 250.0), ("p99", 0.99, 2_000.0)] {
            let value = Measure.quantile(sorted: sorted, q)
            let base = Measure.quantile(sorted: sortedBaseline, q)
            let perSegment = segments.map { Measure.quantile(sorted: $0, q) }
            let ratioTarget = label == "p50" ? " and <= 3x baseline" : ""
            let met = value <= target && (label != "p50" || value <= 3 * base)
            report.add(Figure(
                "\(name).\(label)", value, unit: "ns", baseline: base, runs: segments.count,
                min: perSegment.min(), max: perSegment.max(),
                target: "<= \(Int(target)) ns\(ratioTarget)", met: name.contains("flatout") ? nil : met,
                note: "\(samples.count) calls; \(note)"
            ))
        }
    }
}
