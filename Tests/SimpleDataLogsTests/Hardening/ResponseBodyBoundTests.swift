import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: an answer's body is never buffered without bound", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct ResponseBodyBoundTests {
    @Test("a 202 whose body is 16 MiB: the transport keeps 1 MiB and answers at once, and the tally in it still counts")
    func transportKeepsTheBound() async throws {
        let ingest = try IngestFixture.ingest()
        defer { ingest.stop() }
        ingest.script([.padded(to: 16 << 20), .padded(to: 16 << 20)])
        let endpoint = try Endpoint.resolve(ingest.endpoint).get()
        let builder = UploadRequestBuilder(eventsURL: endpoint.eventsURL, ingestKey: "sdl_pub_test0001", osName: "Linux", osVersion: "6.8.0")
        let request = builder.request(
            batchID: UUID(), payloads: [Array(IngestFixture.event(id: "e1").utf8)], sentAt: IngestFixture.nowMilliseconds, gzip: false, timeout: .seconds(30)
        )
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        for _ in 0..<2 {
            let response = try await transport.send(request)
            #expect(response.status == 202)
            #expect(response.body.count == SessionDelegate.maxBodyBytes, "\(response.body.count) bytes kept")
            let tally = String(decoding: response.body.prefix(64), as: UTF8.self)
            #expect(tally.hasPrefix("{\"accepted\":"), "\(tally)")
        }
    }

    @Test("through the client: batches answered with huge bodies are delivered, counted and deleted")
    func clientDelivers() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script(Array(repeating: .padded(to: 4 << 20), count: 3))
            delivery.track(0..<120)
            let result = await delivery.client.flush()
            #expect(result.delivered == 120 && result.remaining == 0)
            #expect(delivery.deliveredSeqs == Array(0..<120))
            #expect(delivery.client.counters.isBalanced)
        }
    }
}
