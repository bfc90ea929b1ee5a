import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A fault at the server, and what the SDK must account for afterwards.
struct ServerFault: Sendable, CustomStringConvertible {
    var name: String
    var ingest = LocalIngest.Configuration()
    var script: [ScriptedAnswer] = []
    var adjust: @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in }
    /// How many events may end up set aside or dropped (documented drops), at most.
    var allowedDrops = 0
    var description: String { name }
}

@Suite("Reliability: a matrix of faults at the server", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct ReliabilityServerFaultTests {
    static let faults: [ServerFault] = [
        ServerFault(name: "5xx storm", script: Array(repeating: .status(503), count: 6) + Array(repeating: .status(500), count: 4)),
        ServerFault(name: "429 with Retry-After seconds", script: [.status(429, retryAfter: "2"), .status(429, retryAfter: "1")]),
        ServerFault(name: "429 with Retry-After date", script: [.status(429, retryAfter: "Wed, 02 Dec 2026 10:00:03 GMT")]),
        ServerFault(name: "413 with a small size limit", ingest: LocalIngest.Configuration(maxBodyBytes: 1_500), adjust: { $0.compressesRequests = false }),
        ServerFault(name: "415 to gzip (resent plain)", script: [.status(415)]),
        ServerFault(name: "415 to gzip and to plain (set aside)", script: [.status(415), .status(415)], allowedDrops: 50),
        ServerFault(name: "400", script: [.status(400)], allowedDrops: 50),
        ServerFault(name: "slow answers past the deadline", script: [.normal(delay: .seconds(3)), .normal(delay: .seconds(3))], adjust: { $0.requestTimeout = .seconds(1) }),
        ServerFault(name: "closed before the request is read", script: [.closeBeforeReading, .closeBeforeReading]),
        ServerFault(name: "response dropped after counting", script: [.dropResponseAfterCounting, .dropResponseAfterCounting]),
        ServerFault(name: "redirects (never followed)", script: [.redirect(307, to: "http://127.0.0.1:9/v1/events"), .redirect(308, to: "http://127.0.0.1:9/v1/events"), .redirect(302, to: "/elsewhere")]),
        ServerFault(name: "a relay answering 200 and 204 (not 202)", script: [.status(200), .status(204)]),
        ServerFault(name: "a proxy answering 413 whatever the size (singles kept, not dropped)", script: Array(repeating: .status(413), count: 12)),
        ServerFault(
            name: "one batch answered 500 again and again (demoted, the rest go first)",
            script: Array(repeating: .status(500), count: 3) + [.normal(), .normal()] + Array(repeating: .status(500), count: 5)
        ),
    ]

    @Test("every event arrives once or is accounted for by a documented drop, and the counters balance", arguments: faults)
    func fault(_ fault: ServerFault) async throws {
        try await withDelivery(ingest: fault.ingest, adjust: fault.adjust) { delivery in
            delivery.ingest.script(fault.script)
            delivery.track(0..<150)
            // Flushes ignore the backoff (not a Retry-After): a bounded number of them must get
            // everything through.
            // Slow answers need the injected deadline to pass: advance the manual clock meanwhile.
            for _ in 0..<30 {
                let flushing = Task { await delivery.client.flush() }
                let deadline = ContinuousClock.now + testWaitLimit
                while !flushing.isCancelled, delivery.test.clock.sleeperCount > 0, delivery.ingest.remainingScript.contains(where: { $0.delay > .zero }) {
                    try #require(ContinuousClock.now < deadline, "\(fault): the slow answers were still to come after \(testWaitLimit) of moving the clock")
                    delivery.test.clock.advance(by: .seconds(1))
                    await Task.yield()
                }
                _ = try await withTimeLimit(waitingFor: "flush() to return against \(fault)") { await flushing.value }
                if delivery.client.counters.pending == 0 { break }
                // A Retry-After holds flushes too (issue 23): the time the ingest asked for
                // passes on the manual clock between flushes.
                delivery.test.clock.advance(by: .seconds(5))
            }
            let counters = delivery.client.counters
            #expect(counters.pending == 0, "\(fault): \(counters)")
            #expect(counters.isBalanced, "\(fault): \(counters)")
            let drops = counters.setAside + counters.droppedTooLarge + counters.rejectedByIngest
            #expect(drops <= fault.allowedDrops, "\(fault): only documented drops")
            let seqs = delivery.ingest.receivedEvents.compactMap { if case .int(let seq)? = $0.properties["seq"] { Int(seq) } else { nil } }
            #expect(seqs.count + drops == 150 && Set(seqs).count == seqs.count, "\(fault): each event once")
            // Resends reuse the ids: every seq arrived under one event_id, however often it was sent.
            var ids: [Int: Set<String>] = [:]
            for event in delivery.ingest.rawEvents {
                if case .int(let seq)? = event.properties["seq"] { ids[Int(seq), default: []].insert(event.eventID) }
            }
            #expect(ids.values.allSatisfy { $0.count == 1 }, "\(fault): no seq under two ids")
        }
    }

    @Test("while the ingest refuses connections, requests stay within what the backoff allows")
    func refusedConnectionsAreBounded() async throws {
        try await withDelivery { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.ingest.stop()
            delivery.track(0..<10)
            await delivery.client.flush()
            var attempts = 0
            var waited: Duration = .zero
            while waited < .seconds(600) {
                // A stream that ended would only ever give nil again: the loop ends with it.
                guard let report = try await nextElement(of: reports, waitingFor: "the next delivery report while refused") else { break }
                guard case .willRetry(_, let after, _) = report else { continue }
                attempts += 1
                waited += after
                try #require(await delivery.test.clock.waitForSleepers(count: 1), "the code under test started its timer")
                delivery.test.clock.advance(by: after)
            }
            // Ten minutes offline: the waits double from 1 s to the 5-minute cap, full jitter; more
            // than 60 tries would mean a busy loop.
            #expect(attempts >= 3 && attempts <= 60, "\(attempts) tries in 10 simulated minutes")
            #expect(delivery.client.counters.pendingOnDisk == 10)
        }
    }

    @Test("401 until the key goes live: one configuration error, then everything arrives once")
    func keyGoesLive() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(keyLiveAfter: .seconds(3_600), clock: ManualClock())) { delivery in
            delivery.track(0..<60)
            await delivery.client.flush()
            #expect(delivery.ingest.receivedEvents.isEmpty)
            delivery.ingest.makeKeyLive()
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            delivery.test.clock.advance(by: .seconds(60))
            #expect(await delivery.ingest.waitForEvents(count: 60))
            await delivery.client.flush()
            #expect(delivery.deliveredSeqs == Array(0..<60) && delivery.client.counters.isBalanced)
            #expect(delivery.test.log.lines(containing: "401 from the ingest").count == 1)
        }
    }
}
