#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import SimpleDataLogs
@testable import SDLCommands
import SimpleDataLogsTesting

/// `sdl outbox` shows the intake logs in the root: what each holds that no journal held yet, and
/// whether its run is alive, so an operator looking at a dead pod's folder sees every event it
/// left, not only the journaled ones.
@Suite("CLI: sdl outbox and the intake logs", .stuckTestLimit, .skippedInFastLoop)
struct CLIOutboxIntakeLogTests {
    @Test("a live run's log: its events, held by its pid; once it is killed: free, the same events; after the next launch: none", .tags(.processes))
    func liveThenEnded() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        let alive = try await onOwnThread { () -> OutboxReport in
            // 20 events, its journal held shut: they are in its intake log only.
            let child = try ChildProcess("OutboxCrashChild", ["log-then-die", path, "20", "wait"])
            defer { child.kill() }
            _ = child.readLine(until: { $0 == "tracked" })
            return OutboxInspector.inspect(root: path)
        }
        let live = try #require(alive.intakeLogs.first)
        #expect(alive.intakeLogs.count == 1 && live.events == 20 && live.problem == nil)
        if case .held = live.lock {} else { Issue.record("the live run's lock: \(live.lock)") }
        #expect(alive.intakeLogEvents == 20 && alive.pendingEvents == 0)

        let (status, console) = await sdl("outbox", path)
        #expect(status == 0, "\(console.errors)")
        let line = console.output.split(separator: "\n").first { $0.contains("intake log ") }
        #expect(line?.contains("20 events not yet journaled") == true && line?.contains("its run ended") == true, "\(console.output)")
        #expect(console.output.contains("0 events waiting, 20 in intake logs"), "\(console.output)")
        #expect(OutboxInspector.inspect(root: path).intakeLogs.first?.lock == .free)

        try await withTestClient(directory: directory, adjust: { $0.keepsIntakeLog = true }) { restarted in
            let events = try await restarted.flushedEvents()
            #expect(events.filter { $0.name == "before_death" }.count == 20)
            // The dead run's log is gone; the only one left is the live client's, all journaled.
            let report = OutboxInspector.inspect(root: path)
            #expect(report.intakeLogs.count == 1 && report.intakeLogs[0].name != live.name, "\(report.intakeLogs.map(\.name))")
            if case .held = report.intakeLogs.first?.lock {} else { Issue.record("the live client's own log: \(String(describing: report.intakeLogs.first?.lock))") }
            #expect(report.intakeLogEvents == 0)
        }
        // A log whose run ended with everything journaled is said to be, not to be replayed.
        var ended = OutboxReport(root: "/outbox", exists: true)
        ended.intakeLogs = [OutboxIntakeLogReport(name: "intake-x.log", byteCount: 4_198_400, events: 0, tag: nil, lock: .free)]
        #expect(OutboxReportText.lines(ended).contains { $0.contains("0 events not yet journaled") && $0.contains("ended with everything journaled") })
    }

    @Test("a link or a FIFO under a log's name is neither read nor listed; a file that is no log says so")
    func hostileNames() async throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let base = directory.path + "/intake-0192d3a0-0000-7000-8000-00000000000"
        try FileManager.default.createSymbolicLink(atPath: base + "1.log", withDestinationPath: "/etc/passwd")
        #expect(mkfifo(base + "2.log", 0o600) == 0)
        try Data("not a log at all".utf8).write(to: URL(fileURLWithPath: base + "3.log"))
        let report = OutboxInspector.inspect(root: directory.path)
        #expect(report.intakeLogs.map(\.name) == ["intake-0192d3a0-0000-7000-8000-000000000003.log"])
        #expect(report.intakeLogs.first?.problem?.contains("not a log") == true)
        #expect(report.intakeLogEvents == 0)
    }
}
