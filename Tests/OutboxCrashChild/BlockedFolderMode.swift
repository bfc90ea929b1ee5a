import Foundation
import SimpleDataLogs

// OutboxCrashChild blocked-folder <folder> <count>
//     <folder> cannot be made at configure (the test put a file where a parent folder goes): a
//     client tracks <count> events into memory, prints "tracked", then waits (at most a minute)
//     until they are journaled, which happens once the test frees the path and the client's
//     retry finds the folder: prints "journaled N", or "not journaled N", and waits to be killed.

/// Runs the `blocked-folder` mode; never returns.
func runBlockedFolderMode(folder: URL, count: Int) async -> Never {
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    var tuning = ClientTuning()
    tuning.startsUploader = false
    let client = SimpleDataLogsClient(
        clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(), tuning: tuning, environment: [:]
    )
    client.configure(SimpleDataLogsClient.Configuration(
        // The key and endpoint of the test's next client (`TestClient`'s key; the test's ingest):
        // the area records them, and only a client of the same destination sends its events.
        ingestKey: "sdl_pub_test0000000000",
        endpoint: ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9")!,
        storageDirectory: folder, batchSize: 50
    ))
    for seq in 0..<count { client.track("blocked", properties: ["seq": .int(Int64(seq))]) }
    // Every event reaches the outbox (in memory: the folder is still blocked); no uploader, so
    // nothing is sent.
    await client.flush()
    say("tracked")
    let journaled = client.blockMainThreadUntilJournaled(atLeast: count, timeout: .seconds(60))
    say("\(journaled ? "journaled" : "not journaled") \(client.journalWatermark.eventsWritten)")
    while true { pause() }
}
