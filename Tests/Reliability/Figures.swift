import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// The run's figures, counted by the `seq` property from the ingest's raw requests (every event
/// of every counted request, before deduplication), never from its deduplicated view.
struct Figures: Encodable, Sendable {
    var kills = 0
    /// Kills aimed at a child's launch and recovery (before or just after "ready").
    var earlyKills = 0
    /// Children that did not die of SIGKILL (crashed or exited): must be 0.
    var childrenNotKilled = 0
    var rate = 0
    var seconds = 0.0
    /// Seqs announced by children (`t N` is printed before `track`: at most one per kill was
    /// announced and not yet tracked).
    var tracked = 0
    /// Seqs at or below a watermark their child reported.
    var journaled = 0
    /// Distinct seqs in the ingest's raw requests.
    var delivered = 0
    /// Journaled seqs never delivered. Must be 0.
    var lost = 0
    /// Events the outbox's caps dropped, counted by the children (as they last reported) and the
    /// final client: documented, counted drops (the app limits' 10,000 events). They show among
    /// `lost`, since the driver cannot tell them apart by seq; this says how many of the lost
    /// the SDK itself counted as dropped. At least this many: a child killed right after an
    /// eviction may not have reported it.
    var evictedByCaps = 0
    /// Returned calls never delivered: seqs above their child's last watermark and below its
    /// last announced one (`t N` is printed after the call before it returned). With the intake
    /// log every returned call survives a kill: must be 0 then.
    var lostReturned = 0
    /// Children that ran without an intake log (`nolog`); must be 0 when the log is on.
    var childrenWithoutLog = 0
    /// Microseconds the whole `configure` call took, which makes the intake log on the caller's
    /// thread, over the children (p50, p99, max). There is no launch window left to measure: the
    /// log is open when `configure` returns.
    var logOpenP50 = 0
    var logOpenP99 = 0
    var logOpenMax = 0
    /// Whether the children kept an intake log, and with which limits.
    var intakeLog = true
    var profile = "app"
    /// Seqs tracked above their child's last watermark (the in-memory window at the kill).
    var windowEvents = 0
    /// Of those, never delivered (the durability contract allows this loss).
    var lostFromWindow = 0
    /// The window at the kill, in events: mean and largest.
    var windowMean = 0.0
    var windowP50 = 0
    var windowP99 = 0
    var windowMax = 0
    /// Seqs a child had announced when its first watermark came (the journal recovers the
    /// folder before it writes): mean and largest.
    var startLagMean = 0.0
    var startLagMax = 0
    /// The largest distance between the last announced seq and a watermark line over any
    /// child's life.
    var runLagMax = 0
    /// A child's usual time from spawn to "ready" (moving average), in milliseconds.
    var readyMilliseconds = 0.0
    /// Seqs that arrived under two or more event ids. Must be 0.
    var seqsUnderTwoIDs = 0
    /// Delivered seqs no child announced (a harness fault). Must be 0.
    var phantomSeqs = 0
    /// Seq events on the wire beyond the first of each seq (resent batches, replays).
    var resends = 0
    /// Raw seq events on the wire.
    var rawSeqEvents = 0
    /// Events the SDK made itself (session_start, session_end), delivered, distinct by id.
    var sdkEventsDelivered = 0
    /// Events left in the outbox after the final flush, read from the files. Must be 0.
    var leftOnDisk = 0
    /// Files holding events after the final flush.
    var filesWithEvents = 0
    /// The ingest's answers.
    var requests = 0
    var requestsByStatus: [String: Int] = [:]
    var closedBeforeReading = 0
    var droppedResponses = 0
    var replayedBatches = 0
    var rejectedByIngest = 0
    var ingestRestarts = 0
    /// The final client's counters.
    var finalRecovered = 0
    var finalDelivered = 0
    var finalPending = 0
    var finalFlushes = 0
    var finalBalanced = true
    var anomalies = 0
    var passed = false

    var failures: [String] {
        var reasons: [String] = []
        if lost > 0 { reasons.append("\(lost) journaled event(s) lost") }
        if seqsUnderTwoIDs > 0 { reasons.append("\(seqsUnderTwoIDs) seq(s) under two event ids") }
        if leftOnDisk > 0 { reasons.append("\(leftOnDisk) event(s) left on disk") }
        if phantomSeqs > 0 { reasons.append("\(phantomSeqs) delivered seq(s) no child announced") }
        if intakeLog && lostReturned > 0 { reasons.append("\(lostReturned) call(s) that returned lost (the intake log is on)") }
        if intakeLog && childrenWithoutLog > 0 { reasons.append("\(childrenWithoutLog) child(ren) without an intake log") }
        return reasons
    }
}

/// What the figures were computed from, and the details a failure needs.
struct Evidence: Encodable, Sendable {
    var lostSeqs: [Int64] = []
    var lostWindowSeqs: [Int64] = []
    /// Of those, the calls that had returned (below the child's last announced seq).
    var lostReturnedSeqs: [Int64] = []
    var twoIDSeqs: [String: [String]] = [:]
    var leftSeqs: [Int64] = []
    var filesWithEvents: [String] = []
    var phantomSeqs: [Int64] = []
    var children: [String] = []
}

enum Tally {
    static func compute(
        reports: [ChildReport], raw: [ReceivedEvent], scan: OutboxScan, into figures: inout Figures
    ) -> Evidence {
        var evidence = Evidence()
        var idsBySeq: [Int64: Set<String>] = [:]
        var sdkIDs = Set<String>()
        for event in raw {
            if case .int(let seq)? = event.properties["seq"], event.name == "reliability" {
                figures.rawSeqEvents += 1
                idsBySeq[seq, default: []].insert(event.eventID)
            } else {
                sdkIDs.insert(event.eventID)
            }
        }
        figures.sdkEventsDelivered = sdkIDs.count
        figures.delivered = idsBySeq.count
        figures.resends = figures.rawSeqEvents - idsBySeq.count
        for (seq, ids) in idsBySeq where ids.count > 1 {
            evidence.twoIDSeqs[String(seq)] = ids.sorted()
        }
        figures.seqsUnderTwoIDs = evidence.twoIDSeqs.count

        var windows: [Int] = []
        var announcedRanges: [(range: ClosedRange<Int64>, report: ChildReport)] = []
        for report in reports {
            figures.tracked += report.announced
            if report.otherLines.contains(where: { $0.hasPrefix("anomaly") }) { figures.anomalies += 1 }
            guard let last = report.lastAnnounced else { continue }
            announcedRanges.append((report.startSeq...last, report))
            let mark = report.lastWatermark ?? (report.startSeq - 1)
            if mark >= report.startSeq {
                figures.journaled += Int(mark - report.startSeq + 1)
                for seq in report.startSeq...mark where idsBySeq[seq] == nil { evidence.lostSeqs.append(seq) }
            }
            let window = Int(last - mark)
            windows.append(window)
            if window > 0 {
                // With several threads, a seq between two announced ones may never have been
                // reached by its thread: only announced seqs count.
                for seq in (mark + 1)...last where idsBySeq[seq] == nil && report.hasAnnounced(seq) {
                    evidence.lostWindowSeqs.append(seq)
                    if report.hasReturned(seq) { evidence.lostReturnedSeqs.append(seq) }
                }
            }
        }
        figures.lostReturned = evidence.lostReturnedSeqs.count
        figures.childrenWithoutLog = reports.filter(\.withoutLog).count
        let opens = reports.compactMap(\.logOpenMicroseconds).sorted()
        if !opens.isEmpty {
            figures.logOpenP50 = opens[(opens.count - 1) / 2]
            figures.logOpenP99 = opens[Int(Double(opens.count - 1) * 0.99)]
            figures.logOpenMax = opens.last ?? 0
        }
        figures.lost = evidence.lostSeqs.count
        figures.evictedByCaps += reports.map(\.evictedByCaps).reduce(0, +)
        figures.windowEvents = windows.reduce(0, +)
        figures.lostFromWindow = evidence.lostWindowSeqs.count
        let startLags = reports.compactMap(\.announcedBeforeFirstWatermark)
        figures.startLagMax = startLags.max() ?? 0
        figures.startLagMean = startLags.isEmpty ? 0 : Double(startLags.reduce(0, +)) / Double(startLags.count)
        figures.runLagMax = Int(reports.map(\.largestLag).max() ?? 0)
        let sortedWindows = windows.sorted()
        figures.windowMax = sortedWindows.last ?? 0
        if !sortedWindows.isEmpty {
            figures.windowP50 = sortedWindows[(sortedWindows.count - 1) / 2]
            figures.windowP99 = sortedWindows[Int(Double(sortedWindows.count - 1) * 0.99)]
        }
        figures.windowMean = windows.isEmpty ? 0 : Double(figures.windowEvents) / Double(windows.count)

        let sortedRanges = announcedRanges.sorted { $0.range.lowerBound < $1.range.lowerBound }
        for seq in idsBySeq.keys.sorted() where !(announcer(of: seq, in: sortedRanges)?.hasAnnounced(seq) ?? false) {
            evidence.phantomSeqs.append(seq)
        }
        figures.phantomSeqs = evidence.phantomSeqs.count

        figures.leftOnDisk = scan.eventRecords
        figures.filesWithEvents = scan.filesWithEvents.count
        evidence.leftSeqs = scan.seqs.sorted()
        evidence.filesWithEvents = scan.filesWithEvents
        figures.passed = figures.failures.isEmpty
        return evidence
    }

    /// The child whose seqs' range holds `seq`, if any (`ranges` sorted by lower bound, disjoint).
    private static func announcer(of seq: Int64, in ranges: [(range: ClosedRange<Int64>, report: ChildReport)]) -> ChildReport? {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if ranges[middle].range.contains(seq) { return ranges[middle].report }
            if seq < ranges[middle].range.lowerBound { high = middle - 1 } else { low = middle + 1 }
        }
        return nil
    }

    /// The table, one figure a line.
    static func table(_ figures: Figures) -> String {
        func n(_ value: Int) -> String {
            let digits = String(value)
            var out = ""
            for (index, character) in digits.reversed().enumerated() {
                if index > 0 && index % 3 == 0 && character != "-" { out.append(",") }
                out.append(character)
            }
            return String(out.reversed())
        }
        let windowMs = figures.rate > 0 ? figures.windowMean * 1_000 / Double(figures.rate) : 0
        let statuses = figures.requestsByStatus.sorted { $0.key < $1.key }.map { "\($0.key)×\(n($0.value))" }.joined(separator: " ")
        let rows: [(String, String, String)] = [
            ("kills (SIGKILL)", n(figures.kills), "\(n(figures.earlyKills)) early (launch/recovery; ready after ~\(String(format: "%.0f", figures.readyMilliseconds)) ms); \(figures.childrenNotKilled) died otherwise"),
            ("events tracked", n(figures.tracked), "at \(n(figures.rate))/s per child (\(figures.profile) limits, intake log \(figures.intakeLog ? "on" : "off")), in \(String(format: "%.1f", figures.seconds)) s"),
            ("events journaled", n(figures.journaled), "at or below a reported watermark"),
            ("events delivered", n(figures.delivered), "distinct seqs in the raw requests"),
            ("lost (journaled, never delivered)", n(figures.lost), figures.lost == 0 ? "must be 0: ok" : "must be 0: FAIL"),
            ("evicted by the caps (counted)", n(figures.evictedByCaps),
             "counters.evictedByCaps as the children last said and the final client's; counted drops the app limits make, at least this many of the lost"),
            ("lost among returned calls", n(figures.lostReturned),
             figures.intakeLog ? (figures.lostReturned == 0 ? "must be 0 (intake log on): ok" : "must be 0 (intake log on): FAIL") : "intake log off: allowed"),
            ("configure, making the log (diagnostic)", "\(n(figures.logOpenP50)) µs",
             "the whole configure call, which makes the intake log on the caller's thread: p50; p99 \(n(figures.logOpenP99)) µs, max \(n(figures.logOpenMax)) µs; \(figures.childrenWithoutLog) child(ren) without a log"),
            ("lost above the last watermark", n(figures.lostFromWindow),
             "of \(n(figures.windowEvents)) announced above it (each child's last announced call may not have returned); window at a kill: mean \(String(format: "%.1f", figures.windowMean)) events (~\(String(format: "%.1f", windowMs)) ms), p50 \(n(figures.windowP50)), p99 \(n(figures.windowP99)), max \(n(figures.windowMax))"),
            ("journal lag (diagnostic)", n(figures.runLagMax),
             "largest gap between tracked and a watermark line; first watermark after \(String(format: "%.1f", figures.startLagMean)) events on average (max \(n(figures.startLagMax)))"),
            ("seqs under two event_ids", n(figures.seqsUnderTwoIDs), figures.seqsUnderTwoIDs == 0 ? "must be 0: ok" : "must be 0: FAIL"),
            ("resends on the wire", n(figures.resends), "of \(n(figures.rawSeqEvents)) raw seq events; \(n(figures.replayedBatches)) replayed batches"),
            ("left on disk after the final flush", n(figures.leftOnDisk),
             figures.leftOnDisk == 0 ? "must be 0: ok" : "must be 0: FAIL (\(figures.filesWithEvents) files)"),
            ("delivered seqs never announced", n(figures.phantomSeqs), figures.phantomSeqs == 0 ? "harness check: ok" : "harness check: FAIL"),
            ("SDK's own events delivered", n(figures.sdkEventsDelivered), "session_start / session_end"),
            ("ingest requests", n(figures.requests),
             "\(statuses); \(n(figures.closedBeforeReading)) reset, \(n(figures.droppedResponses)) answers dropped; \(figures.ingestRestarts) restarts"),
            ("final client", "\(figures.finalFlushes) flush(es)",
             "recovered \(n(figures.finalRecovered)), delivered \(n(figures.finalDelivered)), pending \(n(figures.finalPending)), \(figures.finalBalanced ? "balanced" : "UNBALANCED")"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        let valueWidth = rows.map(\.1.count).max() ?? 0
        var lines = rows.map { row in
            row.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: valueWidth - row.1.count) + row.1 + "  " + row.2
        }
        lines.append(figures.passed ? "PASS" : "FAIL: " + figures.failures.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }
}
