import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// What the SDK says at debug level, through a real client sending to a real local ingest: one
/// line per batch sent and per answer, never one per event, and never the key in full.
@Suite("Logging: the debug story of a client", .stuckTestLimit, .skippedInFastLoop)
struct LogLinesTests {
    static let key = "sdl_pub_debugstory0123456789"

    @Test("at debug: one line per batch sent and one per answer, with status, size and round trip; none per event; the key never in full", .tags(.sockets))
    func onePerBatch() async throws {
        try await withDelivery(key: Self.key, adjust: { $0.logLevel = .debug }) { delivery in
            delivery.track(0..<500, name: "debug_story_event")
            try await withTimeLimit(waitingFor: "a flush of 500 events") { [client = delivery.client] in _ = await client.flush() }
            #expect(delivery.ingest.summary.accepted == 500)
            let lines = delivery.test.log.lines
            let requests = delivery.ingest.requests.count
            #expect(requests == 10, "batches of 50")
            let sent = delivery.test.log.lines(containing: "Sending batch ")
            let heard = delivery.test.log.lines(containing: ": HTTP 202 after ")
            #expect(sent.count == requests && heard.count == requests)
            #expect(sent.allSatisfy { $0.level == .debug && $0.message.contains(": 50 events, ") })
            #expect(heard.allSatisfy { $0.message.hasSuffix(" ms (50 events).") || $0.message.hasSuffix(" s (50 events).") })
            #expect(!delivery.test.log.lines(containing: "Sealed ").isEmpty)
            #expect(delivery.test.log.lines(containing: "Configured: sending to \(delivery.ingest.endpoint.absoluteString)/v1/events").count == 1)
            #expect(lines.allSatisfy { !$0.message.contains(Self.key) }, "the key is shown redacted, never whole")
            #expect(lines.allSatisfy { !$0.message.contains("debug_story_event") }, "no line names an event: the counters carry those")
            #expect(lines.count < 60, "\(lines.count) lines for 500 events in 10 batches")
        }
    }

    @Test("a hot loop of 100,000 events gives a number of lines bounded by its batches, not its events", .tags(.sockets, .burst))
    func hotLoop() async throws {
        try await withDelivery(key: Self.key, adjust: { $0.logLevel = .debug; $0.batchSize = 1_000; $0.maxConcurrentRequests = 4; $0.limits = .server }) { delivery in
            let client = delivery.client
            for seq in 0..<100_000 { client.track("hot", properties: ["seq": .int(Int64(seq))]) }
            try await withTimeLimit(waitingFor: "100,000 events delivered") {
                while client.counters.delivered < 100_000 { _ = await client.flush() }
            }
            #expect(client.counters.isBalanced && client.counters.delivered == 100_000)
            let lines = delivery.test.log.lines
            let batches = delivery.ingest.requests.count
            #expect(batches >= 100)
            // A line for each batch sent and answered, one for each group sealed, and the few
            // milestones: never within sight of one per event.
            #expect(lines.count <= 3 * batches + 20, "\(lines.count) lines for \(batches) requests")
            #expect(lines.count < 1_000, "\(lines.count) lines for 100,000 events")
        }
    }

    @Test("a backoff at debug says how long and why; the warning stays once per episode", .tags(.sockets))
    func backoffStory() async throws {
        try await withDelivery(adjust: { $0.logLevel = .debug }) { delivery in
            delivery.ingest.script([.status(503, retryAfter: "2")])
            delivery.track(0..<10)
            try await withTimeLimit(waitingFor: "a first try that fails") { [client = delivery.client] in _ = await client.flush() }
            let log = delivery.test.log
            #expect(log.lines(containing: ": HTTP 503 after ").count == 1)
            #expect(log.lines(containing: "Next try in 2.0 s (the ingest's Retry-After of 2.0 s).").count == 1)
            #expect(log.lines.filter { $0.level == .warning }.count == 1)
        }
    }
}
