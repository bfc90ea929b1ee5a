import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// `setOffline(_:)`: journaling goes on, sending pauses until switched back, with a real local
/// ingest that counts every request.
@Suite("Delivery: the offline switch", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct OfflineSwitchTests {
    @Test("offline from before configure: flush journals and seals but sends nothing; back online, everything arrives in order")
    func offlineThenOnline() async throws {
        try await withDelivery(adjust: { $0.logLevel = .info }) { delivery in
            let client = delivery.client
            client.setOffline(true)
            #expect(client.isOffline)
            delivery.track(0..<120)
            let flushed = try await withTimeLimit(waitingFor: "a flush while offline") { await client.flush() }
            #expect(flushed.delivered == 0 && flushed.remaining == 120)
            #expect(delivery.ingest.requests.isEmpty, "not one request while offline")
            #expect(client.counters.pendingOnDisk == 120 && client.journalWatermark.eventsWritten >= 120)

            client.setOffline(false)
            let arrived = try await withTimeLimit(waitingFor: "120 events after going online") { [ingest = delivery.ingest] in
                await ingest.waitForEvents(count: 120, timeout: .seconds(60))
            }
            #expect(arrived)
            #expect(delivery.deliveredSeqs == Array(0..<120))
            #expect(delivery.test.log.lines(containing: "Offline: sending is paused").count == 1)
            #expect(delivery.test.log.lines(containing: "Online again").count == 1)
        }
    }

    @Test("going offline mid-stream: no request starts after the switch; shutdown while offline keeps the rest on disk at once, and the next start sends it")
    func offlineAtShutdown() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Torn down by hand: the scoped helper would remove the folder the next start reads.
        let earlier = try Delivery(directory: directory)
        try await { (delivery: Delivery) async throws in
            defer { delivery.ingest.stop() }
            let client = delivery.client
            delivery.track(0..<50)
            _ = try await withTimeLimit(waitingFor: "a flush") { await client.flush() }
            #expect(delivery.ingest.summary.accepted == 50)
            client.setOffline(true)
            delivery.track(50..<100)
            let requests = delivery.ingest.requests.count
            await shutDown(client, timeLimit: .seconds(30))
            #expect(delivery.ingest.requests.count == requests, "shutdown sent nothing while offline")
            #expect(client.counters.pendingOnDisk == 50 && client.counters.isBalanced, "\(client.counters)")
        }(earlier)
        // The same endpoint: an area's events wait for the one they were tracked for.
        try await withDelivery(ingest: LocalIngest.Configuration(port: earlier.ingest.port), directory: directory) { delivery in
            _ = try await withTimeLimit(waitingFor: "a flush after restart") { [client = delivery.client] in await client.flush() }
            #expect(delivery.deliveredSeqs == Array(50..<100), "not persisted: the next start is online")
        }
    }
}
