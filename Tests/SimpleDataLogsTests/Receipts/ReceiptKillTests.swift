import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Completeness receipts: real processes killed with SIGKILL", .stuckTestLimit, .skippedInFastLoop)
struct ReceiptKillTests {
    @Test("killed at each stored step of the receipts, restarted: the receipts count every event once, and nothing settled is sent again", .tags(.processes, .sockets), arguments: ReceiptCrashPoint.allCases)
    func killedBetweenReceipts(point: ReceiptCrashPoint) async throws {
        let count = 120
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path
        let endpoint = ingest.endpoint.absoluteString
        let ending = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["receipts", path, point.rawValue, String(count)], environment: ["SDL_TEST_ENDPOINT": endpoint])
            return child.wait()
        }
        #expect(ending.reason == .uncaughtSignal && ending.status == SIGKILL, "the child died at \(point)")

        // The same destination, a server's receipts, the real time (the child's ledger is stamped with it).
        let restarted = TestClient(configure: false, directory: directory, endpoint: ingest.endpoint, adjust: { $0.completenessReceipts = .dailyAndAtShutdown })
        restarted.wallClock.set(Date())
        restarted.configure()
        await restarted.client.flush()
        await shutDown(restarted.client)

        let events = ingest.receivedEvents.filter { $0.name == "e" }
        #expect(events.count == count, "\(point): every event arrived")
        let receipts = ingest.receivedEvents.filter { $0.name == PendingReceipt.eventName }
        let delivered = receipts.map { ReceiptDeliveryTests.int($0, "delivered") }
        // Each receipt but the last was delivered and counted in a later one.
        #expect(delivered.reduce(0, +) == count + receipts.count - 1, "\(point): \(delivered)")
        let rawReceipts = ingest.rawEvents.filter { $0.name == PendingReceipt.eventName }
        #expect(rawReceipts.count == receipts.count, "\(point): no receipt made twice")
        let seqs = receipts.map { ReceiptDeliveryTests.int($0, "receipt_seq") }.sorted()
        #expect(seqs == Array(1...max(1, receipts.count)), "\(point): numbered without a gap: \(seqs)")
        switch point {
        case .afterSettlement:
            // The first batch was settled in the ledger, not deleted: deleted at launch, never resent.
            let firstBatch = ingest.rawEvents.filter { $0.name == "e" && ReceiptDeliveryTests.int($0, "seq") < 50 }
            #expect(firstBatch.count == 50, "the settled batch went once")
            #expect(receipts.count == 1)
        case .afterReceiptBegun, .afterReceiptJournaled:
            #expect(receipts.count == 2 && delivered.first == count)
        }
        #expect(restarted.client.counters.isBalanced, "\(restarted.client.counters)")
    }
}
