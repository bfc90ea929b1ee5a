import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 25's promise from the outside: a call that returned survives the process dying right
/// after it, by `abort()` or by `SIGKILL`, at the next launch, once.
@Suite("Intake log: what a dead process tracked comes back at the next launch, once", .stuckTestLimit, .skippedInFastLoop)
struct IntakeReplayKillTests {
    @Test("an app that tracks 20 events and dies before any reaches the journal gets all 20 at the next launch, each once", .tags(.processes), arguments: ["abort", "kill"])
    func trackedThenDied(how: String) async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        let ending = try await onOwnThread {
            // The child's journal never writes: without the log, these 20 would be lost.
            let child = try ChildProcess("OutboxCrashChild", ["log-then-die", path, "20", how == "abort" ? "abort" : "wait"])
            guard child.readLine(until: { $0 == "tracked" }) != nil else { child.kill(); return child.wait() }
            if how == "kill" { child.kill() }
            return child.wait()
        }
        #expect(ending.reason == .uncaughtSignal && ending.status == (how == "abort" ? SIGABRT : SIGKILL), "the child died by \(how)")
        #expect(try JournalReader.events(inOutbox: path).isEmpty, "nothing reached the journal before the death")
        try await withTestClient(directory: directory) { restarted in
            let events = try await restarted.flushedEvents().filter { $0.name == "before_death" }
            let seqs = try events.map { try $0.requiredInt("seq") }
            #expect(seqs.sorted() == Array(0..<20), "all 20, each once: \(seqs.count) came back")
            #expect(Set(events.map(\.eventID)).count == 20)
            #expect(restarted.client.counters.recovered == 20)
            #expect(restarted.client.counters.isBalanced, "\(restarted.client.counters)")
        }
    }

    @Test(
        "the launch window is closed: 10 events tracked before configure and 10 right after it, then a death inside launch (abort or SIGKILL), even with the outbox unable to take an area: all 20 at the next launch, each once",
        .tags(.processes), arguments: ["abort", "kill"], [false, true]
    )
    func diedDuringLaunch(how: String, areasRefused: Bool) async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        if areasRefused {
            // A file where the areas folder goes: the outbox never holds an area in this run, so
            // without a log made at configure these 20 would be in memory only.
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Data("not a folder".utf8).write(to: URL(fileURLWithPath: path + "/areas"))
        }
        let (ending, line) = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["log-at-launch", path, "20", how == "abort" ? "abort" : "wait"])
            guard let line = child.readLine(until: { $0.hasPrefix("tracked") }) else { child.kill(); return (child.wait(), "") }
            if how == "kill" { child.kill() }
            return (child.wait(), line)
        }
        #expect(ending.reason == .uncaughtSignal && ending.status == (how == "abort" ? SIGABRT : SIGKILL), "the child died by \(how): \(line)")
        if areasRefused {
            // The outbox never held an area in that run (it gave up at once, so whether the intake
            // had settled by the child's line depends on the threads' timing, not asserted).
            var isFolder: ObjCBool = true
            #expect(FileManager.default.fileExists(atPath: path + "/areas", isDirectory: &isFolder) && !isFolder.boolValue, "still the file: no area was made")
            try FileManager.default.removeItem(atPath: path + "/areas")
        }
        #expect(try JournalReader.events(inOutbox: path).isEmpty, "nothing reached the journal before the death")
        try await withTestClient(directory: directory) { restarted in
            let events = try await restarted.flushedEvents().filter { $0.name == "at_launch" }
            let seqs = try events.map { try $0.requiredInt("seq") }
            #expect(seqs.sorted() == Array(0..<20), "all 20, each once: \(seqs.sorted())")
            #expect(Set(events.map(\.eventID)).count == 20)
            #expect(restarted.client.counters.isBalanced, "\(restarted.client.counters)")
        }
    }

    @Test("the replayed events carry the dead run's device ids and defaults; the live run's own calls and events are untouched by them", .tags(.processes))
    func identityOfTheDeadRun() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["log-identity", path])
            _ = child.readLine(until: { $0 == "tracked" })
            child.kill()
            _ = child.wait()
        }
        try await withTestClient(directory: directory) { restarted in
            restarted.client.track("live_before")
            restarted.client.setDeviceID("live-device")
            restarted.client.track("live_after")
            let events = try await restarted.flushedEvents()
            let byName = Dictionary(events.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(byName["dead_first"]?.deviceID == "dead-device")
            #expect(byName["dead_first"]?.props["plan"] == .string("pro"))
            #expect(byName["dead_second"]?.deviceID == "dead-device-2")
            #expect(byName["dead_second"]?.props["plan"] == .string("pro"))
            #expect(byName["live_before"]?.deviceID == nil, "the dead run's device id is not this run's")
            #expect(byName["live_before"]?.props["plan"] == nil, "nor its defaults")
            #expect(byName["live_after"]?.deviceID == "live-device")
            #expect(events.filter { $0.name.hasPrefix("dead_") }.count == 2)
        }
    }

    @Test("eight threads tracking at 5,000 calls a second each, killed mid-way with nothing journaled: every call that returned is there, once, and a second launch replays nothing again", .tags(.processes, .burst))
    func killedInsideTrack() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        let returned: [Int: Int] = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["log-threads", path, "8"])
            var returned: [Int: Int] = [:]
            var lines = 0
            while let line = child.readLine(until: { $0.hasPrefix("t") }) {
                let parts = line.dropFirst().split(separator: " ").compactMap { Int($0) }
                if parts.count == 2 { returned[parts[0]] = max(returned[parts[0]] ?? 0, parts[1]) }
                lines += 1
                // About halfway through the 4,000 calls.
                if lines >= 200 { break }
            }
            child.kill()
            _ = child.wait()
            return returned
        }
        #expect(returned.count == 8, "every thread tracked")
        // Shut down, not torn down: the folder stays for the third launch below. Caps as the
        // child's: nothing is evicted.
        var tuning = ClientTuning()
        tuning.caps = OutboxCaps(maxEvents: 10_000_000, maxBytes: 4 << 30, maxFiles: 1_000_000)
        let restarted = TestClient(tuning: tuning, directory: directory)
        do {
            let events = try await restarted.flushedEvents().filter { $0.name == "threaded" }
            #expect(Set(events.map(\.eventID)).count == events.count, "no event twice")
            var seen: [Int: Set<Int>] = [:]
            for event in events { seen[try event.requiredInt("thread"), default: []].insert(try event.requiredInt("seq")) }
            for (thread, count) in returned {
                let missing = (0..<count).filter { !(seen[thread]?.contains($0) ?? false) }
                #expect(missing.isEmpty, "thread \(thread): \(missing.count) of the \(count) calls that returned are missing, first \(Array(missing.prefix(5)))")
            }
            #expect(restarted.client.counters.recovered > 0)
            #expect(restarted.client.counters.evictedByCaps == 0)
            #expect(restarted.client.counters.skippedBacklog == 0)
        }
        await shutDown(restarted.client)
        // The restarted client shut down cleanly: a third launch replays nothing twice.
        try await withTestClient(tuning: tuning, directory: directory) { third in
            let events = try await third.flushedEvents().filter { $0.name == "threaded" }
            #expect(Set(events.map(\.eventID)).count == events.count, "no event twice after a third launch")
            #expect(third.client.counters.evictedByCaps == 0)
        }
    }
}
