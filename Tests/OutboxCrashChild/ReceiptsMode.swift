import Foundation
import SimpleDataLogs

/// `OutboxCrashChild receipts <folder> <receipt crash point> <count>`: a server-like client
/// (receipts daily and at shutdown) sending to SDL_TEST_ENDPOINT tracks `count` events, flushes,
/// and shuts down; it is killed with SIGKILL at the crash point inside the receipts' code: at its
/// first delivery's settlement, or in its shutdown receipt.
func runReceiptsMode(folder: URL, point: String, count: Int) async -> Never {
    var faults = FaultInjection()
    faults.receiptCrashPoint = ReceiptCrashPoint(rawValue: point)
    let endpoint = ProcessInfo.processInfo.environment["SDL_TEST_ENDPOINT"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9")!
    let client = SimpleDataLogsClient(
        clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(),
        tuning: ClientTuning(), faults: faults, environment: [:]
    )
    var configuration = SimpleDataLogsClient.Configuration(
        ingestKey: "sdl_pub_test0000000000", endpoint: endpoint, storageDirectory: folder, batchSize: 50
    )
    configuration.completenessReceipts = .dailyAndAtShutdown
    client.configure(configuration)
    for seq in 0..<count { client.track("e", properties: ["seq": .int(Int64(seq))]) }
    await client.flush()
    await client.shutdown()
    FileHandle.standardOutput.write(Data("finished without crashing\n".utf8))
    exit(0)
}
