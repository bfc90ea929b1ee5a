import Foundation
import SimpleDataLogs

// A child process for the outbox's crash tests.
//
//   OutboxCrashChild seal <folder> <crash point> <count>
//       tracks `count` events (seq 0…) with batches of 50, and is killed by SIGKILL inside the
//       real sealing code at <crash point>.
//   OutboxCrashChild stream <folder> <count>
//       tracks up to `count` events at a steady pace, printing "watermark N" after each 100
//       as the journal confirms them, until the parent kills it.
//   OutboxCrashChild hold <folder> <count>
//       tracks `count` events, prints "ready", and waits to be killed (it holds its area).
//   OutboxCrashChild hold-gated <folder>
//       configures with its journal held shut (nothing is ever written), prints "ready", and
//       waits to be killed.
//   OutboxCrashChild exit-plain <folder> <count>
//       a command-line tool through the static façade: tracks and returns from main without
//       calling anything (the exit hook journals; the next run sends).
//   OutboxCrashChild exit-shutdown <folder> <count>
//       the same, ending with `await SimpleDataLogs.shutdown()` (everything sent before exit).
//   OutboxCrashChild on-cue <folder> <name>
//       a client with `.crashes` tracks <name>, prints "ready" once it is journaled, then reads
//       one line: "crash" aborts the process, anything else exits 0.
//   OutboxCrashChild blocked-folder <folder> <count>
//       tracks into memory while <folder> cannot be made; journals once it can (BlockedFolderMode.swift).
//   OutboxCrashChild intake-log <path> <threads>
//       appends to an intake log from several threads until killed (IntakeLogMode.swift).
//   OutboxCrashChild log-then-die | log-threads <folder> …
//       tracks and dies by abort() or SIGKILL; only the intake log holds what it tracked
//       (IntakeReplayModes.swift); log-no-room: no room on disk for the log (NoRoomMode.swift).
//   OutboxCrashChild receipts <folder> <receipt crash point> <count>
//       delivers and shuts down with receipts on; killed inside their code (ReceiptsMode.swift).
//   OutboxCrashChild descriptors-…
//       runs out of file descriptors (DescriptorModes.swift).

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: OutboxCrashChild seal|stream|hold <folder> …\n".utf8))
    exit(64)
}
/// The argument at `index`, or an empty string.
func argument(_ index: Int) -> String { index < arguments.count ? arguments[index] : "" }

let mode = arguments[0]
// The intake log's storage alone, killed mid-append: IntakeLogMode.swift.
if mode == "intake-log" { runIntakeLogMode(path: arguments[1], threads: Int(argument(2)) ?? 4) }
// Out of file descriptors: DescriptorModes.swift.
if mode.hasPrefix("descriptors-") { await runDescriptorMode(mode, Array(arguments.dropFirst())) }
let folder = URL(fileURLWithPath: arguments[1])
// The intake log seen from a whole client, killed: IntakeReplayModes.swift.
if mode == "log-no-room" { await runNoRoomMode(folder: folder) }
if mode.hasPrefix("log-") { await runIntakeReplayMode(mode, folder: folder, arguments: Array(arguments.dropFirst(2))) }
// Killed inside the completeness receipts' code: ReceiptsMode.swift.
if mode == "receipts" { await runReceiptsMode(folder: folder, point: argument(2), count: Int(argument(3)) ?? 120) }
// A folder blocked at launch, freed while the client runs: BlockedFolderMode.swift.
if mode == "blocked-folder" { await runBlockedFolderMode(folder: folder, count: Int(argument(2)) ?? 100) }

if mode.hasPrefix("crash-") {
    // `crash-<kind>`: a client with `.crashes` autocapture tracks, then the process dies by
    // <kind>; `crash-<kind>-control` dies the same way without the SDK, for the exit status.
    let kind = mode.dropFirst("crash-".count).replacingOccurrences(of: "-control", with: "")
    if !mode.hasSuffix("-control") {
        let crashing = SimpleDataLogsClient(clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: { var tuning = ClientTuning(); tuning.startsUploader = false; return tuning }(), environment: [:])
        let endpoint = ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9")!
        crashing.configure(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_test0000000000", endpoint: endpoint, autocapture: .crashes, storageDirectory: folder))
        crashing.track("before_crash")
        _ = crashing.blockMainThreadUntilJournaled(atLeast: 1, timeout: .seconds(10))
    }
    switch kind {
    case "fatal": fatalError("boom at /Users/someone/Secret/File.swift line 42")
    case "unwrap":
        let missing: Int? = CommandLine.arguments.count > 100 ? 1 : nil
        print(missing!)
    case "segv":
        let pointer = UnsafeMutablePointer<Int>(bitPattern: 0x10)!
        pointer.pointee = 1
    case "stack":
        /// Unbounded recursion: the guard page ends it with SIGSEGV, handled on the alternate stack.
        @inline(never) func recurse(_ depth: Int) -> Int {
            var frame = [Int](repeating: depth, count: 1)
            if depth < 0 { return 0 } // never true; it keeps the compiler from refusing the recursion
            return recurse(depth + 1) + frame.removeLast()
        }
        print(recurse(0))
    default:
        abort()
    }
    exit(0)
}

if mode == "on-cue" {
    let client = SimpleDataLogsClient(clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: { var tuning = ClientTuning(); tuning.startsUploader = false; return tuning }(), environment: [:])
    let endpoint = ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9")!
    client.configure(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_test0000000000", endpoint: endpoint, autocapture: .crashes, storageDirectory: folder))
    client.track(argument(2))
    _ = client.blockMainThreadUntilJournaled(atLeast: 1, timeout: .seconds(30))
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var journaled = 1
    while let line = readLine() {
        if line == "crash" { abort() }
        // "rotate <key>": the key rotated at run time; answered once the outbox has applied it
        // (an event tracked after it is journaled).
        guard line.hasPrefix("rotate ") else { break }
        client.rotateIngestKey(to: String(line.dropFirst("rotate ".count)))
        client.track("after_rotation")
        journaled += 1
        _ = client.blockMainThreadUntilJournaled(atLeast: journaled, timeout: .seconds(30))
        FileHandle.standardOutput.write(Data("rotated\n".utf8))
    }
    exit(0)
}

if mode.hasPrefix("exit-") {
    // The façade, as a tool would use it; SDL_TEST_ENDPOINT names the local ingest.
    let endpoint = ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9")!
    SimpleDataLogs.configure(ingestKey: "sdl_pub_test0000000000", endpoint: endpoint, storageDirectory: folder)
    let count = Int(argument(2)) ?? 10
    for seq in 0..<count { SimpleDataLogs.track("cli", properties: ["seq": .int(Int64(seq))]) }
    if mode == "exit-shutdown" { await SimpleDataLogs.shutdown() }
    exit(0)
}
var faults = FaultInjection()
if mode == "seal" { faults.crashPoint = SealCrashPoint(rawValue: argument(2)) }
// A journal that never writes: what the client took at launch is in memory only when killed.
if mode == "hold-gated" { faults.writerGate = WriterGate() }
// SDL_TEST_ENDPOINT: a local ingest to deliver to; without it the child only writes its outbox.
let endpoint = ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:))
var tuning = ClientTuning()
if endpoint == nil { tuning.startsUploader = false }
let client = SimpleDataLogsClient(
    clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(),
    tuning: tuning, faults: faults, environment: [:]
)
// The tests' own clients use this key and endpoint (`TestClient`'s defaults): an area records
// both, and only a client with the same ones sends (or, with uploads off, adopts) what a killed
// child left.
client.configure(SimpleDataLogsClient.Configuration(
    ingestKey: "sdl_pub_test0000000000", endpoint: endpoint ?? URL(string: "http://127.0.0.1:9")!,
    storageDirectory: folder, batchSize: 50
))

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

switch mode {
case "seal":
    let count = Int(argument(3)) ?? 50
    for seq in 0..<count { client.track("crash_test", properties: ["seq": .int(Int64(seq))]) }
    // Shutdown drains the journal stage, so the seal of the 50th event runs (and dies) first:
    // on the journal thread (afterJournalWrite, afterHandOff) or on the sealer's (the others).
    await client.shutdown()
    say("finished without crashing")
case "stream":
    let count = Int(argument(2)) ?? 100_000
    for seq in 0..<count {
        client.track("crash_test", properties: ["seq": .int(Int64(seq))])
        if seq % 100 == 99 {
            _ = client.blockMainThreadUntilJournaled(atLeast: seq + 1, timeout: .seconds(30))
            say("watermark \(client.journalWatermark.eventsWritten)")
        }
    }
    say("finished without being killed")
case "hold":
    let count = Int(argument(2)) ?? 10
    for seq in 0..<count { client.track("held", properties: ["seq": .int(Int64(seq))]) }
    _ = client.blockMainThreadUntilJournaled(atLeast: count, timeout: .seconds(30))
    say("ready")
    while true { pause() }
case "hold-gated":
    say("ready")
    while true { pause() }
default:
    exit(64)
}
