import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A 202 body accepting everything.
private let accepted = UploadResponse(status: 202, body: Data(#"{"accepted":1,"duplicates":0,"rejected":[]}"#.utf8))

@Suite("Delivery: endpoints, backoff over time, structured lifetime", .stuckTestLimit, .skippedInFastLoop)
struct DeliveryEndpointTests {
    @Test("endpoint forms: the default, a trailing slash, a path prefix; plain HTTP refused unless loopback or opted in", arguments: [
        ("https://edge.simpledatalogs.com", false, "https://edge.simpledatalogs.com/v1/events"),
        ("https://proxy.example.com/", false, "https://proxy.example.com/v1/events"),
        ("https://proxy.example.com/sdl/", false, "https://proxy.example.com/sdl/v1/events"),
        ("http://relay.internal:8080", true, "http://relay.internal:8080/v1/events"),
        ("http://relay.internal:8080", false, ""),
    ])
    func endpoints(configured: String, optIn: Bool, expected: String) async throws {
        // An in-memory transport: these hosts are never contacted.
        let transport = InMemoryTransport(answers: [accepted])
        await withTestClient(endpoint: URL(string: configured)!, adjust: {
            $0.transport = transport
            $0.allowsInsecureHTTP = optIn
        }) { test in
            test.client.track("e")
            await test.client.flush()
            if expected.isEmpty {
                #expect(transport.sent.isEmpty, "nothing is sent")
                #expect(test.log.lines.filter { $0.level == .error }.count == 1, "one log line")
                #expect(test.client.counters.pendingOnDisk == 1, "the event stays on disk")
            } else {
                #expect(transport.sent.map(\.url.absoluteString) == [expected])
            }
        }
    }

    @Test("with the ingest down for a simulated hour, the attempts stay within what the backoff formula allows")
    func anHourOffline() async throws {
        let transport = InMemoryTransport(answers: []) // every try: cannot connect
        try await withTestClient(endpoint: URL(string: "https://edge.simpledatalogs.com")!, adjust: { $0.transport = transport }) { test in
            let reports = test.client.deliveryReports()
            test.client.track("e")
            await test.client.flush() // seals; the first tries happen now
            var waited: Duration = .zero
            var attempts = 0
            while waited < .seconds(3_600) {
                // A stream that ended would only ever give nil again: the loop ends with it.
                guard let report = try await nextElement(of: reports, waitingFor: "the next delivery report while offline") else { break }
                guard case .willRetry(_, let after, _) = report else { continue }
                attempts += 1
                #expect(after <= .seconds(300), "never more than the 5-minute cap")
                waited += after
                try #require(await test.clock.waitForSleepers(count: 1), "the code under test started its timer")
                test.clock.advance(by: after)
            }
            // The flush's own try plus the timer's: each wait is uniform in [0, min(300 s, 2^(n-1) s)],
            // about 150 s on average once capped, so an hour holds about 30; 120 would mean a busy loop.
            #expect(attempts >= 5 && attempts <= 120, "\(attempts) attempts in a simulated hour")
            #expect(transport.sent.count == attempts + 1 || transport.sent.count == attempts, "one request per attempt")
        }
    }

    @Test("withClient runs the body, then shuts the client down, even when the body throws", .tags(.sockets))
    func scopedClient() async throws {
        struct Boom: Error {}
        let ingest = try LocalIngest()
        let directory = TemporaryDirectory()
        let configuration = SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_scoped00000000", endpoint: ingest.endpoint, storageDirectory: directory.url)
        await #expect(throws: Boom.self) {
            try await SimpleDataLogsClient.withClient(configuration) { client in
                for seq in 0..<5 { client.track("scoped", properties: ["seq": .int(Int64(seq))]) }
                throw Boom()
            }
        }
        // Shutdown sent what it could within its limit before returning.
        #expect(ingest.receivedEvents.count == 5)
        ingest.stop()
        directory.remove()
    }

    @Test("uploads go on while every thread of the cooperative pool is blocked", .tags(.sockets, .poolSaturation))
    func uploadsWithPoolSaturated() async throws {
        try await withDelivery { delivery in
            let client = delivery.client
            let ingest = delivery.ingest
            delivery.track(0..<10)
            await client.flush()
            let delivered = try await whileCooperativePoolIsBlocked {
                for seq in 10..<110 { client.track("e", properties: ["seq": .int(Int64(seq))]) }
                // Blocks (this thread is already held on purpose) until the real server has counted
                // them: the SDK seals two batches of 50 and sends them with no pool thread free.
                _ = ingest.blockUntilSummary(timeout: .seconds(20)) { $0.accepted >= 110 }
                return ingest.summary.accepted
            }
            #expect(delivered == 110)
        }
    }
}
