import Foundation
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A client sending to a fresh local ingest, through the real URLSession transport.
struct Delivery: Sendable {
    let ingest: LocalIngest
    let test: TestClient

    init(
        ingest configuration: LocalIngest.Configuration = LocalIngest.Configuration(), key: String = "sdl_pub_test0000000000",
        directory: TemporaryDirectory = TemporaryDirectory(), faults: FaultInjection = FaultInjection(),
        adjust: @escaping @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in }
    ) throws {
        // Tests stop this ingest and start one again on its port (an edge that goes down and comes
        // back): a port outside the ephemeral range is still free then (``reusableLoopbackPort()``).
        ingest = configuration.port == 0
            ? try localIngestOnReusablePort(configuration) : try LocalIngest(configuration: configuration)
        test = TestClient(key: key, faults: faults, directory: directory, endpoint: ingest.endpoint, adjust: adjust)
    }

    var client: SimpleDataLogsClient { test.client }

    /// The sequence numbers the ingest counted (deduplicated by event_id), sorted.
    var deliveredSeqs: [Int] {
        ingest.receivedEvents.compactMap { if case .int(let seq)? = $0.properties["seq"] { Int(seq) } else { nil } }.sorted()
    }

    func track(_ range: Range<Int>, name: String = "e") {
        for seq in range { client.track(name, properties: ["seq": .int(Int64(seq))]) }
    }

    /// Shuts the client down, removes its folder and stops the ingest. Safe to call again: the
    /// scope of `withDelivery` calls it even when the test already did.
    func tearDown() async {
        await test.tearDown()
        ingest.stop()
    }
}

/// Runs `body` with a client sending to a fresh local ingest, and tears both down however `body`
/// ends, a thrown error (a failed `#require`) included, so no client, folder or listening socket
/// outlives the test. Returns what `body` returns.
func withDelivery<Result>(
    ingest configuration: LocalIngest.Configuration = LocalIngest.Configuration(), key: String = "sdl_pub_test0000000000",
    directory: TemporaryDirectory = TemporaryDirectory(), faults: FaultInjection = FaultInjection(),
    adjust: @escaping @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Delivery) async throws -> Result
) async throws -> Result {
    let delivery = try Delivery(ingest: configuration, key: key, directory: directory, faults: faults, adjust: adjust)
    let result: Result
    do {
        result = try await body(delivery)
    } catch {
        // A test that failed part-way may leave a request in flight to an edge scripted to sit on
        // it, and the client's shutdown would wait for that on a manual clock nobody advances any
        // more. Stopping the ingest first ends the request (its delays end at `stop()`), so the
        // teardown cannot hang; a test that ends normally keeps the usual order.
        delivery.ingest.stop()
        await delivery.tearDown()
        throw error
    }
    await delivery.tearDown()
    return result
}
