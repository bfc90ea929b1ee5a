import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("RecordingTransport: the ingest's rules in memory, with no socket", .stuckTestLimit, .skippedInFastLoop)
struct RecordingTransportTests {
    /// An endpoint no network transport could reach: `.invalid` never resolves (RFC 2606).
    static let unreachable = URL(string: "https://ingest.recording-transport.invalid")!

    /// A transport whose `ts` window is centred on the fixtures' time.
    static func transport(clock: any Clock<Duration> = ContinuousClock(), requiredKey: String? = nil, maxBodyBytes: Int = 262_144) -> RecordingTransport {
        RecordingTransport(
            requiredKey: requiredKey, maxBodyBytes: maxBodyBytes, clock: clock,
            wallClock: SettableWallClock(Date(timeIntervalSince1970: Double(IngestFixture.nowMilliseconds) / 1_000))
        )
    }

    /// A request as the uploader builds one, around `body`.
    static func request(
        _ body: Data, key: String = "sdl_pub_test0000000000", batchID: String = UUID().uuidString.lowercased(),
        path: String = "/v1/events", contentType: String = "application/json", gzip: Bool = false
    ) -> UploadRequest {
        var headers = ["Authorization": "Bearer \(key)", "Content-Type": contentType, "SDL-Batch-ID": batchID]
        if gzip { headers["Content-Encoding"] = "gzip" }
        return UploadRequest(url: unreachable.appendingPathComponent(path), headers: headers, body: gzip ? IngestFixture.gzip(body) : body)
    }

    // MARK: With a client

    @Test("a client with a RecordingTransport delivers: after flush() every event is recorded with its properties and ids")
    func clientDelivers() async throws {
        let transport = RecordingTransport()
        try await withTestClient(endpoint: Self.unreachable, adjust: { $0.transport = transport }) { test in
            let ownID = UUID()
            test.client.setDeviceID("device-1")
            test.client.setDefaultProperties(["plan": "pro"])
            test.client.track("order_placed", properties: ["total_cents": .int(1299)])
            test.client.track("exported", properties: ["format": "png"], eventID: ownID)
            let result = await test.client.flush()
            #expect(result == FlushResult(delivered: 2, remaining: 0))
            let events = transport.receivedEvents
            #expect(events.map(\.name) == ["order_placed", "exported"])
            #expect(events.first?.properties == ["total_cents": .int(1299), "plan": "pro"])
            #expect(events.last?.properties == ["format": "png", "plan": "pro"])
            #expect(events.allSatisfy { $0.deviceID == "device-1" })
            #expect(events.last?.eventID == ownID.uuidString.lowercased())
            #expect(Set(events.map(\.eventID)).count == 2)
            let request = try #require(transport.requests.first)
            #expect(transport.requests.count == 1 && request.status == 202 && request.accepted == 2)
            #expect(events.allSatisfy { $0.batchID == request.batchID && $0.batchID != nil })
            let sent = try #require(transport.sentRequests.first)
            #expect(sent.url.absoluteString == "https://ingest.recording-transport.invalid/v1/events")
            #expect(sent.header("authorization") == "Bearer sdl_pub_test0000000000")
            #expect(test.client.counters.delivered == 2 && test.client.counters.isBalanced)
        }
    }

    @Test("a scripted 503 with Retry-After, then the normal 202: the same batch is sent again when the delay has passed")
    func scripted503Then202() async throws {
        let transport = RecordingTransport()
        // A full batch is sent by the uploader's own pass; a flush would ignore the backoff and
        // send again at once (an in-memory answer is quick enough to leave it the time).
        try await withTestClient(endpoint: Self.unreachable, adjust: { $0.transport = transport; $0.batchSize = 3 }) { test in
            let reports = test.client.deliveryReports()
            transport.script([.status(503, retryAfter: "2")])
            for seq in 0..<3 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            guard case .willRetry(_, let after, let reason)? = try await nextElement(of: reports, waitingFor: "a retry report after the 503") else {
                Issue.record("expected a retry report")
                return
            }
            #expect(after >= .seconds(2), "Retry-After: 2 read from the transport's answer")
            #expect(reason.contains("503"))
            #expect(transport.requests.map(\.status) == [503] && transport.receivedEvents.isEmpty)
            try #require(await test.clock.waitForSleepers(count: 1), "the backoff timer started")
            test.clock.advance(by: after)
            #expect(await transport.waitForEvents(count: 3, timeout: testWaitLimit))
            #expect(transport.requests.map(\.status) == [503, 202])
            #expect(transport.requests.first?.batchID == transport.requests.last?.batchID, "the same batch, retried")
        }
    }

    @Test("a 401 pauses sending: flush() does not send again until the probe a minute later, which delivers everything")
    func unauthorizedPauses() async throws {
        let transport = RecordingTransport()
        try await withTestClient(endpoint: Self.unreachable, adjust: { $0.transport = transport }) { test in
            transport.script([.status(401)])
            for seq in 0..<3 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.client.flush()
            #expect(transport.requests.map(\.status) == [401])
            for seq in 3..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.client.flush()
            #expect(transport.requests.count == 1, "paused: the flush sent nothing")
            try #require(await test.clock.waitForSleepers(count: 1), "the probe timer started")
            test.clock.advance(by: .seconds(60))
            #expect(await transport.waitForEvents(count: 5, timeout: testWaitLimit))
            #expect(test.log.lines.filter { $0.level == .error && $0.message.contains("401") }.count == 1)
        }
    }

    @Test("gzip on and off: the body is sent as configured and decoded the same way", arguments: [true, false])
    func gzipOnAndOff(compresses: Bool) async throws {
        let transport = RecordingTransport()
        try await withTestClient(endpoint: Self.unreachable, adjust: { $0.transport = transport; $0.compressesRequests = compresses }) { test in
            test.client.track("a", properties: ["text": .string(String(repeating: "x", count: 500))])
            test.client.track("b")
            await test.client.flush()
            let sent = try #require(transport.sentRequests.first)
            let recorded = try #require(transport.requests.first)
            #expect(transport.receivedEvents.map(\.name) == ["a", "b"])
            #expect(recorded.status == 202 && recorded.bodyByteCount == sent.body.count)
            if compresses {
                #expect(sent.header("Content-Encoding") == "gzip")
                #expect(Array(sent.body.prefix(2)) == [0x1F, 0x8B], "a gzip member")
                #expect(recorded.body.count > sent.body.count, "recorded inflated")
            } else {
                #expect(sent.header("Content-Encoding") == nil)
                #expect(recorded.body == [UInt8](sent.body))
            }
            #expect(recorded.body.first == UInt8(ascii: "{"), "JSON either way")
        }
    }

    @Test("it opens no socket: a live ingest at the configured endpoint hears nothing; without the transport it hears the batch", .tags(.sockets))
    func opensNoSocket() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let transport = RecordingTransport()
        await withTestClient(endpoint: ingest.endpoint, adjust: { $0.transport = transport }) { test in
            test.client.track("e")
            await test.client.flush()
            #expect(transport.receivedEvents.count == 1)
        }
        #expect(ingest.summary.requests == 0, "nothing went over the network")
        // The control: the same configuration without the transport reaches the ingest, so the
        // check above can fail.
        await withTestClient(endpoint: ingest.endpoint) { test in
            test.client.track("e")
            await test.client.flush()
        }
        #expect(ingest.summary.requests == 1)
    }

    // MARK: The contract, request by request

    @Test("the 202 body is the contract's: accepted, duplicates and rejected; a replayed batch id counts nothing again")
    func acceptedBodyAndReplay() async throws {
        let transport = Self.transport()
        let body = IngestFixture.body([
            IngestFixture.event(id: "e1"),
            IngestFixture.event(id: "e2", extra: "\"props\":{\"k\":null}"),
        ])
        let request = Self.request(body, batchID: "batch-1")
        let first = try await transport.send(request)
        #expect(first.status == 202)
        let json = try #require(try JSONSerialization.jsonObject(with: first.body) as? [String: Any])
        #expect(json["accepted"] as? Int == 1 && json["duplicates"] as? Int == 0)
        let rejected = try #require(json["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1 && rejected.first?["index"] as? Int == 1 && rejected.first?["event_id"] as? String == "e2")
        #expect(first.header("content-type") == "application/json")

        let again = try await transport.send(request)
        let replay = try #require(try JSONSerialization.jsonObject(with: again.body) as? [String: Any])
        #expect(again.status == 202 && replay["accepted"] as? Int == 0 && replay["duplicates"] as? Int == 1)
        #expect(transport.receivedEvents.map(\.eventID) == ["e1"])
        #expect(transport.rawEvents.map(\.eventID) == ["e1", "e1"])
        #expect(transport.summary.replayedBatches == 1 && transport.summary.batches == 1)
    }

    @Test("the rules answer as LocalIngest does: 401, 415, 400, 413, 404, and a gzip body is inflated before the limit")
    func rulesAnswer() async throws {
        let transport = Self.transport(requiredKey: "sdl_pub_right", maxBodyBytes: 300)
        let body = IngestFixture.body([IngestFixture.event()])
        #expect(try await transport.send(Self.request(body, key: "sdl_pub_wrong")).status == 401)
        #expect(try await transport.send(Self.request(body, key: "sdl_pub_right", contentType: "text/plain")).status == 415)
        #expect(try await transport.send(Self.request(Data("{".utf8), key: "sdl_pub_right")).status == 400)
        let large = IngestFixture.body([IngestFixture.event(extra: "\"props\":{\"k\":\"\(String(repeating: "x", count: 400))\"}")])
        let tooLarge = try await transport.send(Self.request(large, key: "sdl_pub_right", gzip: true))
        #expect(tooLarge.status == 413, "the limit applies after inflating")
        #expect(try await transport.send(Self.request(body, key: "sdl_pub_right", path: "/v2/events")).status == 404)
        let prefixed = UploadRequest(
            url: URL(string: "https://relay.example.invalid/sdl/v1/events")!,
            headers: ["Authorization": "Bearer sdl_pub_right", "Content-Type": "application/json"], body: body
        )
        #expect(try await transport.send(prefixed).status == 202, "a path prefix is the app's")
        #expect(transport.requests.map(\.status) == [401, 415, 400, 413, 404, 202])
        #expect(transport.receivedEvents.count == 1)
    }

    @Test("what needs a socket is a thrown TransportError: refused connections, a connection closed before reading or after counting")
    func socketFaultsThrow() async throws {
        let transport = Self.transport()
        let body = IngestFixture.body([IngestFixture.event(id: "counted")])
        transport.refuseConnections()
        await #expect(throws: TransportError(.cannotConnect, message: "RecordingTransport refuses connections (refuseConnections(true))")) {
            try await transport.send(Self.request(body))
        }
        #expect(transport.refusedConnections == 1 && transport.sentRequests.isEmpty && transport.requests.isEmpty)
        transport.refuseConnections(false)

        transport.script([.closeBeforeReading, .dropResponseAfterCounting])
        do {
            _ = try await transport.send(Self.request(body))
            Issue.record("closeBeforeReading answered")
        } catch let error as TransportError {
            #expect(error.kind == .other)
        }
        #expect(transport.receivedEvents.isEmpty && transport.summary.closedBeforeReading == 1)
        do {
            _ = try await transport.send(Self.request(body))
            Issue.record("dropResponseAfterCounting answered")
        } catch let error as TransportError {
            #expect(error.kind == .other)
        }
        #expect(transport.receivedEvents.map(\.eventID) == ["counted"], "counted, though the client never heard")
        #expect(transport.summary.droppedResponses == 1)
        #expect(try await transport.send(Self.request(body)).status == 202, "normal again")
    }

    @Test("a scripted delay runs on the transport's clock: the answer comes when a manual clock is advanced")
    func delayOnTheClock() async throws {
        let clock = ManualClock()
        let transport = Self.transport(clock: clock)
        transport.script([.normal(delay: .seconds(30))])
        let sending = Task { try await transport.send(Self.request(IngestFixture.body([IngestFixture.event()]))) }
        try #require(await clock.waitForSleepers(count: 1), "the delay started")
        #expect(transport.receivedEvents.count == 1, "counted before the delay, as the ingest does")
        clock.advance(by: .seconds(30))
        let answer = try await withTimeLimit(waitingFor: "the delayed answer") { try await sending.value }
        #expect(answer.status == 202)
    }

    @Test("a held answer waits for releaseHeldAnswers(); a cancelled send stops waiting and throws cancelled")
    func heldAnswers() async throws {
        let transport = Self.transport()
        let body = IngestFixture.body([IngestFixture.event()])
        transport.script([.heldUntilReleased, .heldUntilReleased])
        let released = Task { try await transport.send(Self.request(body)) }
        let cancelled = Task { try await transport.send(Self.request(body)) }
        #expect(await transport.waitForRequests(count: 2, timeout: testWaitLimit))
        cancelled.cancel()
        do {
            _ = try await withTimeLimit(waitingFor: "the cancelled send to return") { try await cancelled.value }
            Issue.record("the cancelled send answered")
        } catch let error as TransportError {
            #expect(error.kind == .cancelled)
        }
        transport.releaseHeldAnswers()
        let answer = try await withTimeLimit(waitingFor: "the released answer") { try await released.value }
        #expect(answer.status == 202)
        transport.script([.heldUntilReleased])
        #expect(try await transport.send(Self.request(body)).status == 202, "released for good")
    }

    @Test("many tasks at once: every request is answered and every event counted once")
    func concurrentSends() async throws {
        let transport = Self.transport()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await transport.send(Self.request(IngestFixture.body([IngestFixture.event(id: "e\(index % 100)")]))).status
                }
            }
            for try await status in group { #expect(status == 202) }
        }
        #expect(transport.requests.count == 200 && transport.sentRequests.count == 200)
        #expect(Set(transport.receivedEvents.map(\.eventID)).count == 100 && transport.receivedEvents.count == 100)
        #expect(transport.summary.duplicates == 100)
    }
}
