import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Delivery to a real local ingest", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct DeliveryTests {
    @Test("202: batches are sent oldest first with stable ids and deleted; the counters balance")
    func accepted() async throws {
        try await withDelivery { delivery throws in
            delivery.track(0..<120)
            let result = await delivery.client.flush()
            #expect(result.delivered == 120 && result.remaining == 0)
            #expect(delivery.deliveredSeqs == Array(0..<120))
            let requests = delivery.ingest.requests
            #expect(requests.count == 3)
            #expect(requests.allSatisfy { $0.header("Content-Encoding") == "gzip" && $0.header("Content-Type") == "application/json" })
            #expect(requests.allSatisfy { $0.header("User-Agent")?.hasPrefix("simpledatalogs-swift/0.4.0 (") == true })
            #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer sdl_pub_test0000000000" })
            #expect(Set(requests.compactMap(\.batchID)).count == 3)
            #expect(try JournalReader.events(inOutbox: delivery.test.directory.path).isEmpty, "batch files deleted after the 202")
            let counters = delivery.client.counters
            #expect(counters.delivered == 120 && counters.isBalanced, "\(counters)")
        }
    }

    @Test("events the ingest lists in rejected are reported and counted, never resent")
    func rejectedEvents() async throws {
        // The ingest's clock runs 100 days ahead: an event back-dated 3,600 days (kept by the
        // SDK) is outside the ingest's 3,652-day window there, and only that one is rejected.
        let ahead = SettableWallClock(SettableWallClock().now().addingTimeInterval(100 * 86_400))
        try await withDelivery(ingest: LocalIngest.Configuration(wallClock: ahead)) { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.client.track("good")
            delivery.client.track("old", at: delivery.test.wallClock.now().addingTimeInterval(-3_600 * 86_400))
            await delivery.client.flush()
            #expect(delivery.ingest.receivedEvents.map(\.name) == ["good"])
            guard case .delivered(_, let delivered, let rejected)? = try await nextElement(of: reports, waitingFor: "the batch's delivery report") else {
                Issue.record("expected a delivered report")
                return
            }
            #expect(delivered == 1 && rejected.count == 1 && rejected.first?.index == 1)
            await delivery.client.flush()
            #expect(delivery.ingest.requests.count == 1, "never resent")
            let counters = delivery.client.counters
            #expect(counters.rejectedByIngest == 1 && counters.delivered == 1 && counters.isBalanced, "\(counters)")
            #expect(delivery.test.log.lines(containing: "rejected 1 event").count == 1)
        }
    }

    @Test("a response dropped after the ingest counted the batch: the resend carries the same batch id and event ids; each event counts once")
    func droppedResponse() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.dropResponseAfterCounting])
            delivery.track(0..<10)
            // The first try's answer is lost, so the batch stays on disk and is sent again (by the
            // backoff-ignoring flush, or the next one).
            await delivery.client.flush()
            await delivery.client.flush()
            let requests = delivery.ingest.requests.filter { $0.path == "/v1/events" }
            #expect(requests.count == 2)
            #expect(Set(requests.compactMap(\.batchID)).count == 1, "same SDL-Batch-ID on every try")
            #expect(delivery.ingest.rawEvents.count == 20 && delivery.ingest.receivedEvents.count == 10)
            #expect(Set(delivery.ingest.rawEvents.map(\.eventID)).count == 10, "same event_ids on every try")
            #expect(delivery.deliveredSeqs == Array(0..<10))
            #expect(delivery.client.counters.delivered == 10 && delivery.client.counters.isBalanced)
        }
    }

    @Test("413 splits in half down to a single event; a single event within the contract's 256 KiB is kept and retried (the 413 came from in between), never dropped")
    func splitOn413() async throws {
        // The ingest's 2,000-byte limit plays a proxy with a smaller limit than the edge's.
        try await withDelivery(ingest: LocalIngest.Configuration(maxBodyBytes: 2_000), adjust: { $0.compressesRequests = false }) { delivery in
            delivery.track(0..<16)
            delivery.client.track("huge", properties: ["pad": .string(String(repeating: "x", count: 3_000))])
            for _ in 0..<8 { await delivery.client.flush() }
            #expect(delivery.deliveredSeqs == Array(0..<16))
            let counters = delivery.client.counters
            #expect(counters.droppedTooLarge == 0 && counters.delivered == 16 && counters.pendingOnDisk == 1, "\(counters)")
            #expect(counters.isBalanced, "\(counters)")
            #expect(delivery.test.log.lines(containing: "HTTP 413").count == 1, "one warning for the episode")
        }
    }

    @Test("415 to a gzip body is resent uncompressed once; 415 to a plain body sets the batch aside")
    func unsupportedMediaType() async throws {
        try await withDelivery { gzipped in
            gzipped.ingest.script([.status(415)])
            gzipped.track(0..<5)
            await gzipped.client.flush()
            #expect(gzipped.deliveredSeqs == Array(0..<5))
            let encodings = gzipped.ingest.requests.map { $0.header("Content-Encoding") }
            #expect(encodings == ["gzip", nil])
        }

        try await withDelivery(adjust: { $0.compressesRequests = false }) { plain in
            plain.ingest.script([.status(415)])
            plain.track(0..<5)
            await plain.client.flush()
            #expect(plain.ingest.receivedEvents.isEmpty)
            #expect(plain.client.counters.setAside == 5 && plain.client.counters.isBalanced)
        }
    }

    @Test("400 sets the batch aside on disk, and the batches behind it are still delivered")
    func badRequestSetAside() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.status(400)])
            delivery.track(0..<150)
            await delivery.client.flush()
            #expect(delivery.deliveredSeqs == Array(50..<150))
            #expect(delivery.client.counters.setAside == 50)
            let setAside = try FileManager.default.contentsOfDirectory(atPath: delivery.test.directory.path + "/areas/a0/set-aside")
            #expect(setAside.count == 1)
            #expect(delivery.client.counters.isBalanced)
        }
    }

    @Test("5xx and 429 back off, honouring Retry-After in seconds and as an HTTP date, flushes included; then the timer sends")
    func retryAfter() async throws {
        for retryAfter in ["120", "Wed, 02 Dec 2026 10:02:00 GMT"] {
            try await withDelivery { delivery in
                let reports = delivery.client.deliveryReports()
                delivery.ingest.script([.status(503, retryAfter: retryAfter)])
                delivery.track(0..<3)
                await delivery.client.flush()
                guard case .willRetry(_, let after, let reason)? = try await nextElement(of: reports, waitingFor: "a retry report after the \(retryAfter) answer") else {
                    Issue.record("expected a retry report")
                    return // this value's scope; the loop goes on to the next
                }
                #expect(after >= .seconds(120) && after <= .seconds(300), "\(retryAfter): waits \(after)")
                #expect(reason.contains("503"))
                await delivery.client.flush()
                #expect(delivery.ingest.summary.requests == 1, "\(retryAfter): a flush waits for the Retry-After too")
                try #require(await delivery.test.clock.waitForSleepers(count: 1), "the backoff timer started")
                delivery.test.clock.advance(by: after)
                #expect(await delivery.ingest.waitForEvents(count: 3))
                #expect(delivery.deliveredSeqs == [0, 1, 2])
            }
        }
    }

    @Test("the backoff timer, not a new event, sends again when it runs out (on the manual clock)")
    func backoffTimer() async throws {
        try await withDelivery { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.ingest.script([.status(500)])
            delivery.track(0..<3)
            await delivery.client.flush()
            guard case .willRetry(_, let after, _)? = try await nextElement(of: reports, waitingFor: "a retry report after the 500") else {
                Issue.record("expected a retry report")
                return
            }
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            delivery.test.clock.advance(by: after)
            #expect(await delivery.ingest.waitForEvents(count: 3))
        }
    }

    @Test("a timeout on the injected clock: the slow request is abandoned and retried later")
    func timeoutOnInjectedClock() async throws {
        try await withDelivery(adjust: { $0.requestTimeout = .seconds(5) }) { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.ingest.script([.normal(delay: .seconds(30))])
            delivery.track(0..<2)
            let flushing = Task { await delivery.client.flush() }
            #expect(await delivery.ingest.waitForRequests(count: 1))
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            delivery.test.clock.advance(by: .seconds(5))
            _ = try await withTimeLimit(waitingFor: "flush() to return once its request timed out") { await flushing.value }
            guard case .willRetry(_, _, let reason)? = try await nextElement(of: reports, waitingFor: "a retry report after the timeout") else {
                Issue.record("expected a retry report")
                return
            }
            #expect(reason.contains("timedOut") || reason.contains("no answer within"))
        }
    }

    @Test("a refused connection backs off and keeps the events on disk")
    func refusedConnection() async throws {
        try await withDelivery { delivery in
            delivery.ingest.stop()
            delivery.track(0..<4)
            let result = await delivery.client.flush()
            #expect(result.delivered == 0 && result.remaining == 4)
            #expect(delivery.client.counters.pendingOnDisk == 4)
            #expect(delivery.test.log.lines(containing: "Could not deliver").count == 1)
        }
    }

    @Test("401 pauses with one configuration error; probes after 1 minute, then every 10; a key that goes live is picked up")
    func keyProbes() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(requiredKey: "sdl_pub_test0000000000", keyLiveAfter: .seconds(86_400), clock: ManualClock())) { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.track(0..<3)
            await delivery.client.flush()
            guard case .pausedForKey(let first)? = try await nextElement(of: reports, waitingFor: "a pause report after the 401") else {
                Issue.record("expected a pause")
                return
            }
            #expect(first == .seconds(60))
            await delivery.client.flush()
            #expect(delivery.ingest.requests.count == 1, "flush does not break a 401 pause")

            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            delivery.test.clock.advance(by: .seconds(60))
            guard case .pausedForKey(let second)? = try await nextElement(of: reports, waitingFor: "a pause report after the probe's 401") else {
                Issue.record("expected a second pause")
                return
            }
            #expect(second == .seconds(600))
            #expect(delivery.ingest.requests.count == 2)

            delivery.ingest.makeKeyLive()
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the code under test started its timer")
            delivery.test.clock.advance(by: .seconds(600))
            #expect(await delivery.ingest.waitForEvents(count: 3))
            #expect(delivery.test.log.lines(containing: "401 from the ingest").count == 1, "one configuration error")
            #expect(delivery.test.log.lines.allSatisfy { !$0.message.contains("sdl_pub_test0000000000") }, "the key never in full")
        }
    }

    @Test("flush with 300 ms of added latency returns only when the ingest holds every earlier event")
    func flushWithLatency() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(addedLatency: .milliseconds(300))) { delivery in
            delivery.track(0..<60)
            await delivery.client.flush()
            #expect(delivery.ingest.receivedEvents.count == 60, "all there the moment flush returns")
        }
    }

    @Test("flushAndDisable sends what it can, then deletes what missed the limit")
    func flushAndDisable() async throws {
        try await withDelivery { delivery in
            delivery.ingest.script([.normal()] + Array(repeating: .status(503), count: 5))
            delivery.track(0..<100)
            try await withTimeLimit(waitingFor: "flushAndDisable to return (its own limit runs on the manual clock)") { await delivery.client.flushAndDisable(timeLimit: .seconds(10)) }
            #expect(delivery.deliveredSeqs == Array(0..<50))
            #expect(OptOutLeftovers.files(under: delivery.test.directory.path).allSatisfy { $0.hasSuffix("/lock") || $0.hasSuffix("/owner") })
            #expect(OptOutLeftovers.loggedEvents(under: delivery.test.directory.path) == 0)
            delivery.client.track("after")
            #expect(delivery.client.counters.ignoredWhileDisabled == 1)
            let counters = delivery.client.counters
            #expect(counters.deletedByOptOut == 50 && counters.isBalanced, "\(counters)")
        }
    }

    @Test("run(): cancelling its task shuts down and keeps undelivered events for the next start")
    func runCancellation() async throws {
        let directory = TemporaryDirectory()
        let first = try Delivery(directory: directory)
        first.ingest.stop()
        let running = Task { await first.client.run() }
        first.track(0..<7)
        await first.test.drain()
        running.cancel()
        try await withTimeLimit(waitingFor: "the cancelled run() to shut down and return") { await running.value }
        #expect(try JournalReader.events(inOutbox: directory.path).count == 7)

        // The next start sends to the same endpoint (an area's events wait for theirs).
        try await withDelivery(ingest: LocalIngest.Configuration(port: first.ingest.port), directory: directory) { second in
            await second.client.flush()
            #expect(second.deliveredSeqs == Array(0..<7))
        }
    }

    @Test("setEnabled(false) before configure: the ingest sees no connection, and leftovers are deleted")
    func optOutSendsNothing() async throws {
        let directory = TemporaryDirectory()
        let earlier = try Delivery(directory: directory)
        earlier.ingest.stop()
        earlier.track(0..<20)
        await shutDown(earlier.client, timeLimit: .seconds(1))
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(port: earlier.ingest.port))
        await withTestClient(configure: false, directory: directory, endpoint: ingest.endpoint) { next in
            next.client.setEnabled(false)
            next.configure()
            await next.client.flush()
            #expect(ingest.summary.requests == 0)
            #expect(OptOutLeftovers.files(under: directory.path) == ["areas/a0/lock", "areas/a0/owner"])
            #expect(OptOutLeftovers.loggedEvents(under: directory.path) == 0)
        }
        ingest.stop()
    }
}

@Suite("Delivery: server configuration and reports", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct DeliveryServerTests {
    @Test("larger batches and several requests in flight deliver everything once")
    func concurrentRequests() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(addedLatency: .milliseconds(20)), adjust: {
            $0.batchSize = 200
            $0.maxConcurrentRequests = 4
        }) { delivery in
            for chunk in 0..<5 {
                delivery.track((chunk * 1_000)..<((chunk + 1) * 1_000))
                await delivery.test.drain()
            }
            await delivery.client.flush()
            #expect(delivery.deliveredSeqs == Array(0..<5_000))
            #expect(delivery.ingest.summary.batches == 25)
            #expect(delivery.ingest.rawEvents.count == 5_000, "nothing sent twice")
            #expect(delivery.client.counters.isBalanced)
        }
    }

    @Test("each subscriber gets its own bounded report stream, which counts what it dropped and finishes at shutdown")
    func reportStreams() async throws {
        // The streams are read after the scope, whose teardown is what finishes them.
        let (slow, other) = try await withDelivery { delivery in
            let slow = delivery.client.deliveryReports(bufferingNewest: 2)
            let other = delivery.client.deliveryReports()
            delivery.track(0..<250)
            await delivery.client.flush()
            return (slow, other)
        }
        let slowCount = try await withTimeLimit(waitingFor: "the slow subscriber's report stream to finish") {
            var count = 0
            for await _ in slow { count += 1 }
            return count
        }
        let otherCount = try await withTimeLimit(waitingFor: "the other subscriber's report stream to finish") {
            var count = 0
            for await _ in other { count += 1 }
            return count
        }
        #expect(otherCount == 5, "one report per batch")
        #expect(slowCount == 2 && slow.droppedCount == 3)
    }
}
