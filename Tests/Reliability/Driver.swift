#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// The driver: spawns children on one outbox folder, kills each with SIGKILL at a random moment,
/// cycles the ingest through up, down and flapping, then flushes everything and counts.
///
/// Runs on the main actor (the main thread, not one of the cooperative pool's). Blocking waits on
/// children (their pipes, `waitpid`) happen on a thread of each child's own (see `Spawn.swift`).
@MainActor
enum Driver {
    static func run(_ options: DriverOptions) async -> Int32 {
        let seed = options.seed ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let workFolder = FileManager.default.temporaryDirectory
            .appendingPathComponent("sdl-reliability-\(getpid())-\(UInt32.random(in: 0...UInt32.max, using: &random))").path
        let outbox = workFolder + "/outbox"
        do {
            try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: true)
        } catch {
            say("could not make \(outbox): \(error)")
            return 2
        }
        let stderrPath = workFolder + "/children.stderr.log"
        let stderrDescriptor = open(stderrPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { if stderrDescriptor >= 0 { close(stderrDescriptor) } }

        let ingest: IngestControl
        do {
            ingest = try IngestControl()
        } catch {
            say("could not start the local ingest: \(error)")
            return 2
        }
        let executable = ownExecutablePath()
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.removeValue(forKey: "SDL_LOG_LEVEL")
        environment["SDL_RELIABILITY_DUMP_FOLDER"] = workFolder

        let killsText = options.kills >= Int.max / 2 ? "until the time limit" : "\(options.kills) kills"
        say("reliability: \(killsText)\(options.minutes.map { ", at most \($0) min" } ?? ""), \(options.rate) events/s per child, "
            + "phases of \(options.phaseKills) kills (\(options.phases.map(\.rawValue).joined(separator: ", "))), runs of \(options.runMilliseconds.lowerBound)–\(options.runMilliseconds.upperBound) ms, "
            + "\(options.earlyKillPercent)% early kills, seed \(seed)\(options.ci ? ", CI mode" : "")")
        say("folder \(workFolder), ingest 127.0.0.1:\(ingest.port)")

        let started = ContinuousClock.now
        let deadline = options.minutes.map { started + .milliseconds(Int($0 * 60_000)) }
        var reports: [ChildReport] = []
        var figures = Figures()
        figures.rate = options.rate
        figures.profile = options.profile
        figures.intakeLog = options.intakeLog
        var nextSeq: Int64 = 0
        var phaseIndex = -1
        var phaseStart = 0
        var phaseSeq: Int64 = 0
        var phaseRawBefore = 0
        /// A moving average of the time from spawn to "ready", for aiming the early kills.
        var readyMicroseconds = 20_000.0

        func reportPhase(upTo kills: Int) {
            guard phaseIndex >= 0, kills > phaseStart else { return }
            let slice = reports[phaseStart..<kills]
            let tracked = slice.reduce(0) { $0 + $1.announced }
            let journaled = slice.reduce(0) { total, report in
                total + Int((report.lastWatermark ?? (report.startSeq - 1)) - report.startSeq + 1)
            }
            let windows = slice.compactMap { report -> Int64? in
                report.lastAnnounced.map { $0 - (report.lastWatermark ?? (report.startSeq - 1)) }
            }
            let windowMean = windows.isEmpty ? 0 : Double(windows.reduce(0, +)) / Double(windows.count)
            let lag = slice.map(\.largestLag).max() ?? 0
            let raw = ingest.summary.rawEvents
            let elapsed = Double((ContinuousClock.now - started).components.seconds)
            say("phase \(phaseIndex + 1) \(ingest.phase.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) kills \(phaseStart + 1)–\(kills)"
                + "  seqs \(phaseSeq)–\(nextSeq - 1)  tracked \(tracked)  journaled \(journaled)"
                + "  window at kill mean \(String(format: "%.1f", windowMean)) max \(windows.max() ?? 0)  lag max \(lag)"
                + "  raw at ingest +\(raw - phaseRawBefore) (\(raw))"
                + "  \(Int(elapsed)) s")
        }

        var killed = 0
        while killed < options.kills {
            if let deadline, ContinuousClock.now >= deadline { break }
            if killed % options.phaseKills == 0 {
                reportPhase(upTo: killed)
                phaseIndex += 1
                phaseStart = killed
                phaseSeq = nextSeq
                phaseRawBefore = ingest.summary.rawEvents
                let phases = options.phases
                let phase = phases[phaseIndex % phases.count]
                do {
                    try await ingest.enter(phase)
                } catch {
                    say("could not bring the ingest \(phase): \(error)")
                    return 2
                }
            }
            ingest.refreshFlapping(using: &random)

            let child: SpawnedChild
            do {
                child = try SpawnedChild.spawn(
                    executable: executable,
                    arguments: ["child", "--folder", outbox, "--endpoint", ingest.endpoint.absoluteString,
                                "--start-seq", String(nextSeq), "--rate", String(options.rate), "--threads", String(options.threads),
                                "--profile", options.profile, "--intake-log", options.intakeLog ? "on" : "off"],
                    environment: environment, stderrDescriptor: stderrDescriptor, startSeq: nextSeq, threads: options.threads
                )
            } catch {
                say("could not start a child: \(error)")
                return 2
            }
            let spawned = ContinuousClock.now
            var signals = child.signals.makeAsyncIterator()
            var finished: ChildReport?
            let early = Int.random(in: 0..<100, using: &random) < options.earlyKillPercent
            if early {
                // Aimed at launch and recovery: uniform over the usual time to "ready" plus
                // 20 ms (the journal recovers the folder on its own thread after configure).
                figures.earlyKills += 1
                let span = Int(readyMicroseconds) + 20_000
                try? await Task.sleep(for: .microseconds(Int.random(in: 0...span, using: &random)))
            } else {
                // The run is measured from "ready", so the kill lands while it tracks.
                while let signal = await signals.next() {
                    if case .finished(let report) = signal { finished = report }
                    break
                }
                let ready = ContinuousClock.now - spawned
                readyMicroseconds = 0.9 * readyMicroseconds + 0.1 * (Double(ready.components.seconds) * 1e6 + Double(ready.components.attoseconds) / 1e12)
                // With SDL_RELIABILITY_STALL_DUMP, children live long enough for gdb to attach.
                let runs = environment["SDL_RELIABILITY_STALL_DUMP"] == nil ? options.runMilliseconds : 2_000...3_000
                let run = Int.random(in: runs, using: &random)
                if finished == nil { try? await Task.sleep(for: .milliseconds(run)) }
            }
            kill(child.pid, SIGKILL)
            while finished == nil, let signal = await signals.next() {
                if case .finished(let report) = signal { finished = report }
            }
            guard let report = finished else {
                say("lost track of child \(child.pid)")
                return 2
            }
            if !report.killedBySIGKILL {
                figures.childrenNotKilled += 1
                say("child \(child.pid) (start seq \(report.startSeq)) ended with \(report.exitDescription): \(report.otherLines.joined(separator: " | "))")
            }
            for line in report.otherLines where line.hasPrefix("anomaly") { say("child \(child.pid): \(line)") }
            reports.append(report)
            if let last = report.lastAnnounced { nextSeq = max(nextSeq, last + 1) }
            killed += 1
        }
        reportPhase(upTo: killed)
        figures.kills = killed

        // The end: the ingest up and calm, everything flushed by a last client in this process.
        do {
            try await ingest.enter(.up)
        } catch {
            say("could not bring the ingest up for the final flush: \(error)")
            return 2
        }
        var tuning = ClientTuning()
        tuning.backoffScale = 0.01
        let client = SimpleDataLogsClient(
            clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: tuning, environment: [:]
        )
        client.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_reliability000", endpoint: ingest.endpoint, sessionMode: .inactivityTimeout(minutes: 30),
            storageDirectory: URL(fileURLWithPath: outbox), batchSize: options.profile == "server" ? 1_000 : 50, requestTimeout: .seconds(10),
            // The children's limits: with the app's, the caps would drop what server children left.
            limits: options.profile == "server" ? .server : .standard
        ))
        var flushes = 0
        var delivered = 0
        while flushes < 50 {
            delivered += await client.flush().delivered
            flushes += 1
            if client.counters.pending == 0 { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        await client.shutdown(timeLimit: .seconds(10))
        let counters = client.counters
        figures.finalFlushes = flushes
        figures.finalRecovered = counters.recovered
        figures.finalDelivered = counters.delivered
        figures.finalPending = counters.pending
        figures.finalBalanced = counters.isBalanced
        figures.evictedByCaps += counters.evictedByCaps
        say("final flush: \(flushes) flush(es), \(delivered) delivered by them; \(counters)")

        let summary = ingest.summary
        let received = ingest.rawEvents
        figures.readyMilliseconds = readyMicroseconds / 1_000
        ingest.stop()
        figures.requests = summary.requests
        figures.requestsByStatus = Dictionary(uniqueKeysWithValues: summary.byStatus.map { (String($0.key), $0.value) })
        figures.closedBeforeReading = summary.closedBeforeReading
        figures.droppedResponses = summary.droppedResponses
        figures.replayedBatches = summary.replayedBatches
        figures.rejectedByIngest = summary.rejected
        figures.ingestRestarts = ingest.restarts
        figures.seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - started).components.seconds)

        var raw = received
        if options.injectFaults { raw = plantFaults(raw: raw, reports: reports, outbox: outbox) }
        let scan = OutboxScan.scan(root: outbox)
        var evidence = Tally.compute(reports: reports, raw: raw, scan: scan, into: &figures)

        say("")
        say(Tally.table(figures))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let json = try? encoder.encode(figures) { say(String(decoding: json, as: UTF8.self)) }

        if figures.passed && !options.keep {
            try? FileManager.default.removeItem(atPath: workFolder)
            return 0
        }
        // Keep the evidence: the folder as the final flush left it, the children's log, and
        // which seqs, children and files are involved.
        let involved = Set(evidence.lostSeqs + evidence.leftSeqs + evidence.twoIDSeqs.keys.compactMap { Int64($0) })
        evidence.children = reports.filter { report in
            guard let last = report.lastAnnounced else { return false }
            return involved.contains { (report.startSeq...last).contains($0) }
        }.map { "start \($0.startSeq) last announced \($0.lastAnnounced ?? -1) watermark \($0.lastWatermark ?? -1) \($0.exitDescription) \($0.otherLines)" }
        evidence.lostSeqs = Array(evidence.lostSeqs.prefix(1_000))
        evidence.lostWindowSeqs = Array(evidence.lostWindowSeqs.prefix(1_000))
        evidence.lostReturnedSeqs = Array(evidence.lostReturnedSeqs.prefix(1_000))
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        if let json = try? encoder.encode(evidence) {
            _ = FileManager.default.createFile(atPath: workFolder + "/evidence.json", contents: json)
        }
        say("kept \(workFolder) (evidence.json, children.stderr.log, outbox/)")
        return figures.passed ? 0 : 1
    }

    /// For `--inject-faults`: removes every raw copy of one journaled seq (a lost event), adds a
    /// copy of another seq under a new event id, and writes a batch file holding one event into
    /// the outbox, so that each detector must fire.
    static func plantFaults(raw: [ReceivedEvent], reports: [ChildReport], outbox: String) -> [ReceivedEvent] {
        var raw = raw
        let journaled = reports.compactMap { report -> Int64? in
            guard let mark = report.lastWatermark, mark >= report.startSeq else { return nil }
            return report.startSeq + (mark - report.startSeq) / 2
        }
        if let victim = journaled.first {
            raw.removeAll { $0.properties["seq"] == .int(victim) }
            say("inject: removed every raw copy of journaled seq \(victim)")
        }
        if let twin = journaled.dropFirst().first, var copy = raw.first(where: { $0.properties["seq"] == .int(twin) }) {
            copy.eventID = UUID().uuidString.lowercased()
            raw.append(copy)
            say("inject: seq \(twin) again under event id \(copy.eventID)")
        }
        let payload = Array(#"{"event":"reliability","event_id":"00000000-0000-7000-8000-000000000000","ts":0,"props":{"seq":-1}}"#.utf8)
        var record: [UInt8] = OutboxScan.marker
        let length = UInt32(payload.count)
        let lengthBytes = (0..<4).map { UInt8((length >> (8 * $0)) & 0xFF) }
        var crc = CRC32()
        crc.update(lengthBytes[...])
        crc.update(payload[...])
        record += lengthBytes + (0..<4).map { UInt8((crc.value >> (8 * $0)) & 0xFF) } + payload
        let folder = outbox + "/areas/a-injected/batches"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/999999999999-r-injected.batch", contents: Data(record))
        say("inject: wrote one event (seq -1) into \(folder)")
        return raw
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
