// ReadingReceipts.md's samples, compiled; the reading one runs as a real test against a
// LocalIngest.
import Foundation
import Testing
import SimpleDataLogs
import SimpleDataLogsTesting

/// The article's switch, compiled.
func completenessReceiptsOffSample() -> SimpleDataLogsClient.Configuration {
    var configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_…")
    configuration.completenessReceipts = .off
    return configuration
}

@Suite("ReadingReceipts.md: reading receipts", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct CompletenessReceiptsSample {
    /// The article's reading sample over `ingest`'s receipts: the share of what arrived.
    static func share(of ingest: LocalIngest) -> Double {
        let receipts = ingest.receivedEvents.filter { $0.name == "delivery_receipt" }
        var delivered = 0, settled = 0
        for receipt in receipts {
            if case .int(let value)? = receipt.properties["delivered"] { delivered += Int(value) }
            if case .int(let value)? = receipt.properties["settled"] { settled += Int(value) }
        }
        let share = settled == 0 ? 1 : Double(delivered) / Double(settled)
        return share
    }

    @Test("the share of what arrived, from the receipts the ingest received: all of it here, a day later")
    func readingReceipts() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let clock = ManualClock()
        let analytics = SimpleDataLogsClient(clock: clock, wallClock: SettableWallClock())
        analytics.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_test", endpoint: ingest.endpoint,
            storageDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        ))
        for _ in 0..<4 { analytics.track("order_placed") }
        await analytics.flush()
        clock.advance(by: .seconds(86_400))
        #expect(await ingest.waitForEvents(count: 5))
        await analytics.flush()
        #expect(Self.share(of: ingest) == 1)
        let receipt = try #require(ingest.receivedEvents.first { $0.name == "delivery_receipt" })
        #expect(receipt.properties["settled"] == 4)
        await analytics.shutdown()
    }
}
