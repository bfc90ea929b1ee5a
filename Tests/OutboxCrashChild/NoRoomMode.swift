#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SimpleDataLogs

// OutboxCrashChild log-no-room <folder>
//     a disk with no room for the intake log: the process may write files of at most 64 KiB
//     (RLIMIT_FSIZE, SIGXFSZ ignored, so a larger write fails with EFBIG instead of killing it).
//     Configures, tracks 10 events, waits until they are journaled, then prints
//     "log <true|false>" and "journaled <n>", and exits 0. The SDK's own lines come on standard
//     output too, as "sdl <line>".

/// The SDK's lines, on standard output as `sdl <line>` (the test counts them).
private struct EchoingSink: LogSink {
    func log(_ level: LogLevel, _ message: String) {
        FileHandle.standardOutput.write(Data(("sdl " + message + "\n").utf8))
    }
}

/// Runs the `log-no-room` mode; never returns.
func runNoRoomMode(folder: URL) async -> Never {
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: 64 << 10, rlim_max: 64 << 10)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
        say("setrlimit failed")
        exit(70)
    }
    let sink = EchoingSink()
    var tuning = ClientTuning()
    tuning.startsUploader = false
    let client = SimpleDataLogsClient(clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: sink, tuning: tuning, environment: [:])
    var configuration = SimpleDataLogsClient.Configuration(
        ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: folder, batchSize: 50
    )
    configuration.keepsIntakeLog = true
    client.configure(configuration)
    await client.waitUntilIntakeLogSettled()
    for seq in 0..<10 { client.track("no_room", properties: ["seq": .int(Int64(seq))]) }
    let journaled = client.blockMainThreadUntilJournaled(atLeast: 10, timeout: .seconds(30))
    say("log \(client.hasIntakeLog)")
    say("journaled \(journaled ? client.journalWatermark.eventsWritten : -1)")
    exit(0)
}
