import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 25's first measurement: what one append to the intake log costs (``IntakeLogFile``: a
/// checksummed record stored into a `MAP_SHARED` mapping, under a lock as the intake's), against appending the
/// same bytes to an array under the SDK's own lock, which is about what `track()`'s intake does
/// with an event today. The payload is one real event's journal bytes (about 175 B), standing in
/// for a call record. One thread; the log is released 2,000 records behind, as a trailing journal
/// would; mean per call over 1,000,000 calls (100,000 with `--quick`), three runs.
struct IntakeLogBenchmark {
    let options: Options
    let report: Report

    func run() async {
        guard let folder = try? TemporaryFolder("intakelog") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        let calls = options.quick ? 100_000 : 1_000_000
        var ids = EventIDGenerator()
        let now = SystemWallClock().nowMilliseconds
        let payload = BenchmarkSupport.payload(name: BenchEvent.name, properties: BenchEvent.properties(42), id: ids.next(milliseconds: now), timestamp: now)
        var logged: [Double] = []
        var locked: [Double] = []
        for run in 0..<(options.quick ? 1 : 3) {
            var failure: String?
            guard let file = IntakeLogFile.create(at: folder.path + "/intake-\(run).log", slotCount: 65_536, firstSequence: 1, failure: &failure) else {
                report.broken("intake log: \(failure ?? "?")")
                return
            }
            // Under a lock, as the SDK appends under the intake's (the log has none of its own).
            let log = Locked(file)
            let start = Measure.now()
            payload.withUnsafeBytes { bytes in
                for _ in 0..<calls {
                    log.withLock { log in
                        if case .written(let sequence) = log.append(kind: 1, payload: bytes), sequence > 2_000 {
                            log.release(through: sequence - 2_000)
                        }
                    }
                }
            }
            logged.append(Double(Measure.now() - start) / Double(calls))
            log.withLock { $0.close() }

            let array = Locked<[[UInt8]]>([])
            let baselineStart = Measure.now()
            for index in 0..<calls {
                array.withLock { queue in
                    queue.append(payload)
                    // Drained as the stages drain the intake, so the array stays small.
                    if index % 2_000 == 1_999 { queue.removeAll(keepingCapacity: true) }
                }
            }
            locked.append(Double(Measure.now() - baselineStart) / Double(calls))
        }
        // The call record's encoding: the same event, as track() would log it.
        var encodes: [Double] = []
        var scratch: [UInt8] = []
        scratch.reserveCapacity(512)
        let properties = BenchEvent.properties(42)
        let id = ids.next(milliseconds: now)
        for _ in 0..<(options.quick ? 1 : 3) {
            let start = Measure.now()
            for _ in 0..<calls {
                scratch.removeAll(keepingCapacity: true)
                IntakeRecordCodec.encodeLiveEvent(name: BenchEvent.name, id: id, timestamp: now, properties: properties, into: &scratch)
            }
            encodes.append(Double(Measure.now() - start) / Double(calls))
        }
        report.add(Figure.ofRuns("intakelog.encode_event", encodes, unit: "ns", note: "one event's call record (\(scratch.count) B: name, id, times, 5 properties) into a reused buffer, mean of \(calls)"))
        report.add(Figure.ofRuns("intakelog.append", logged, unit: "ns", baseline: Measure.median(locked), note: "one \(payload.count)-byte record into the MAP_SHARED log (checksum, stores, ring), mean of \(calls); baseline: the same bytes appended to an array under Locked"))
        report.add(Figure.ofRuns("intakelog.baseline_locked_append", locked, unit: "ns", note: "the same bytes appended to an array under the SDK's Locked"))
    }
}
