#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SimpleDataLogs

// The modes that run out of file descriptors (IDMakerTests). In a child process of their own,
// since exhausting the descriptors of the test process would break every test beside it.
//
//   OutboxCrashChild descriptors-ids <count>
//       takes every free descriptor, draws <count> ids from UniqueID, prints "distinct N".
//   OutboxCrashChild descriptors-path <folder> <count>
//       a client offline, batches of 50: takes every free descriptor, tracks <count> events and
//       flushes (every batch is sealed with no descriptor free: held in memory), gives the
//       descriptors back, goes online and shuts down (SDL_TEST_ENDPOINT: the local ingest).
//       Prints "exhausted N" and the counters.
//   OutboxCrashChild descriptors-configure-again <folder> <count>
//       configures a client, then calls configure <count> more times (each ignored), and prints
//       "descriptors before N after M", this whole process's count (HonestLogTests).

/// Takes every free descriptor (`dup` until `EMFILE`), keeping standard input, output and error.
/// - Returns: The descriptors taken, to be closed by ``giveBack(_:)``.
func takeEveryDescriptor() -> [Int32] {
    var taken: [Int32] = []
    while true {
        let descriptor = dup(2)
        if descriptor < 0 { break }
        taken.append(descriptor)
    }
    return taken
}

/// Closes what ``takeEveryDescriptor()`` took.
func giveBack(_ descriptors: [Int32]) {
    for descriptor in descriptors { close(descriptor) }
}

/// Runs a `descriptors-…` mode; never returns.
func runDescriptorMode(_ mode: String, _ arguments: [String]) async -> Never {
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    switch mode {
    case "descriptors-ids":
        let count = Int(arguments.first ?? "") ?? 1_000
        let taken = takeEveryDescriptor()
        // Checked, so that the test cannot pass by having descriptors to spare.
        let probe = open("/dev/null", O_RDONLY)
        var ids = Set<UUID>()
        for _ in 0..<count { ids.insert(UniqueID.random()) }
        giveBack(taken)
        say("exhausted \(probe < 0 ? taken.count : 0)")
        say("distinct \(ids.count)")
        exit(0)
    case "descriptors-path":
        let folder = URL(fileURLWithPath: arguments.first ?? "")
        let count = Int(arguments.dropFirst().first ?? "") ?? 300
        let endpoint = ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9")!
        let client = SimpleDataLogsClient(
            clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: ClientTuning(), environment: [:]
        )
        client.setOffline(true)
        client.configure(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_descriptors0000", endpoint: endpoint, storageDirectory: folder, batchSize: 50))
        // Recovery done, the area taken, the connection pool made: all before the descriptors go.
        await client.flush()
        let taken = takeEveryDescriptor()
        let probe = open("/dev/null", O_RDONLY)
        for seq in 0..<count { client.track("no_descriptor", properties: ["seq": .int(Int64(seq))]) }
        // Seals every batch, with no descriptor free: each is held in memory under its id.
        await client.flush()
        giveBack(taken)
        say("exhausted \(probe < 0 ? taken.count : 0)")
        client.setOffline(false)
        await client.shutdown()
        say("counters \(client.counters)")
        exit(0)
    case "descriptors-configure-again":
        // Counted in a process of its own: in the test process, tests running beside this one
        // open and close descriptors of every kind, and an ignored configure's leak (a
        // URLSession's, which is no file under the folder) cannot be told from theirs.
        let folder = URL(fileURLWithPath: arguments.first ?? "")
        let count = Int(arguments.dropFirst().first ?? "") ?? 40
        let client = SimpleDataLogsClient(
            clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: ClientTuning(), environment: [:]
        )
        let configuration = SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_descriptors0000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: folder
        )
        client.configure(configuration)
        client.track("e")
        // The first configure's descriptors (area lock, journal, session) all open before the count.
        _ = client.blockMainThreadUntilJournaled(atLeast: 1, timeout: .seconds(30))
        let before = openDescriptorCount()
        for _ in 0..<count { client.configure(configuration) }
        let after = openDescriptorCount()
        say("descriptors before \(before) after \(after)")
        await client.shutdown(timeLimit: .zero)
        exit(0)
    default:
        exit(64)
    }
}

/// The descriptors open in this process (Linux: the entries of `/proc/self/fd`; elsewhere -1).
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}
