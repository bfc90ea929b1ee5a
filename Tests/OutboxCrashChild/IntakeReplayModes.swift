import Foundation
import SimpleDataLogs

// The intake log seen from a whole client (issue 25):
//
// Both modes hold the journal's writer shut: what the child tracks is in its memory and its
// intake log only.
//
// OutboxCrashChild log-then-die <folder> <count> abort|wait
//     once the intake log is open, tracks <count> events, prints
//     "tracked" once every `track()` has returned, then calls `abort()` or waits to be killed.
//     What it tracked is in no journal: only the intake log can bring it to the next launch.
// OutboxCrashChild log-at-launch <folder> <count> abort|wait
//     tracks <count>/2 events before `configure`, configures, at once tracks the rest, prints
//     "tracked settled=<true|false>" (whether the outbox had queued the earlier logs yet, or
//     given up on its folder),
//     then calls `abort()` or waits to be killed: nothing waits for the outbox, so the death
//     falls inside launch.
// OutboxCrashChild log-identity <folder>
//     sets a device id and default properties, tracks, sets another device id, tracks, prints
//     "tracked" and waits to be killed.
// OutboxCrashChild log-threads <folder> <threads>
//     tracks 500 events from each of <threads> threads at once, about 5,000 calls a second each,
//     its journal never writing, each thread printing "t<i> <n>" after every 10th returned call
//     (n calls of that thread returned), then waits to be killed; the test kills it mid-way, so
//     the kill lands inside `track()` on some thread.

/// Runs the intake-log modes; never returns.
func runIntakeReplayMode(_ mode: String, folder: URL, arguments: [String]) async -> Never {
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    var faults = FaultInjection()
    // The journal never writes: what the child tracked is in its memory and its log only.
    faults.writerGate = WriterGate()
    var tuning = ClientTuning()
    tuning.startsUploader = false
    // Nothing is sent: caps far above what a run tracks, so that none is evicted.
    tuning.caps = OutboxCaps(maxEvents: 10_000_000, maxBytes: 4 << 30, maxFiles: 1_000_000)
    let client = SimpleDataLogsClient(
        clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: tuning, faults: faults,
        environment: [:]
    )
    var configuration = SimpleDataLogsClient.Configuration(
        // `TestClient`'s key and endpoint: only a client of the same destination adopts the area.
        ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: folder, batchSize: 50
    )
    configuration.keepsIntakeLog = true
    if mode == "log-at-launch" {
        let count = arguments.first.flatMap { Int($0) } ?? 20
        for seq in 0..<(count / 2) { client.track("at_launch", properties: ["seq": .int(Int64(seq))]) }
        client.configure(configuration)
        for seq in (count / 2)..<count { client.track("at_launch", properties: ["seq": .int(Int64(seq))]) }
        say("tracked settled=\(!client.isOpeningIntakeLog)")
        if arguments.dropFirst().first == "abort" { abort() }
        while true { pause() }
    }
    client.configure(configuration)
    // Past the launch window (configure until the log is open, DESIGN.md "The intake log").
    await client.waitUntilIntakeLogSettled()
    guard client.hasIntakeLog else {
        say("no intake log")
        exit(66)
    }
    switch mode {
    case "log-then-die":
        let count = arguments.first.flatMap { Int($0) } ?? 20
        for seq in 0..<count { client.track("before_death", properties: ["seq": .int(Int64(seq))]) }
        say("tracked")
        if arguments.dropFirst().first == "abort" { abort() }
        while true { pause() }
    case "log-identity":
        // Identity calls before and between the events: the replay must resolve each event as
        // this run would have.
        client.setDeviceID("dead-device")
        client.setDefaultProperties(["plan": .string("pro")])
        client.track("dead_first")
        client.setDeviceID("dead-device-2")
        client.track("dead_second")
        say("tracked")
        while true { pause() }
    case "log-threads":
        let threads = arguments.first.flatMap { Int($0) } ?? 8
        let started = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            Thread.detachNewThread {
                started.signal()
                var seq = 0
                // 500 each (4,000 in all, within the backlog of 5,000: none is skipped), about
                // 5,000 a second per thread, then the thread idles.
                while seq < 500 {
                    client.track("threaded", properties: ["thread": .int(Int64(index)), "seq": .int(Int64(seq))])
                    seq += 1
                    if seq % 5 == 0 { usleep(1_000) }
                    if seq % 10 == 0 { say("t\(index) \(seq)") }
                }
                while true { pause() }
            }
        }
        for _ in 0..<threads { started.wait() }
        while true { pause() }
    default:
        exit(64)
    }
}
