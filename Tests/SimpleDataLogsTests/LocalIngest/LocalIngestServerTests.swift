import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

@Suite("LocalIngest over real sockets on 127.0.0.1", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct LocalIngestServerTests {
    typealias Fixture = IngestFixture

    @Test("a valid batch is 202 with its tally, and the events arrive typed")
    func acceptsABatch() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        #expect(ingest.port > 0 && ingest.endpoint.absoluteString == "http://127.0.0.1:\(ingest.port)")
        let body = Fixture.body([
            Fixture.event(id: "e1", extra: #""device_id":"dev","session_id":"ses","app_state":"active","engaged_ms":5,"props":{"type":"area","n":3,"r":0.5,"pro":true}"#),
            Fixture.event("", id: "bad"),
        ])
        let answer = try await Fixture.post(ingest, body, headers: ["SDL-Batch-ID": "batch-1"])
        #expect(answer.status == 202)
        #expect(answer.body.accepted == 1)
        #expect(answer.body.duplicates == 0)
        let rejected = try #require(answer.body.rejected)
        #expect(rejected.count == 1 && rejected.first?.index == 1 && rejected.first?.eventID == "bad")
        let event = try #require(ingest.receivedEvents.first)
        #expect(event.name == "screenshot_taken" && event.eventID == "e1" && event.timestamp == Fixture.nowMilliseconds)
        #expect(event.deviceID == "dev" && event.sessionID == "ses" && event.appState == "active" && event.engagedMilliseconds == 5)
        #expect(event.properties == ["type": .string("area"), "n": .int(3), "r": .double(0.5), "pro": .bool(true)])
        #expect(event.batchID == "batch-1" && event.sentAt == Fixture.nowMilliseconds + 5)
        let request = try #require(ingest.requests.first)
        #expect(request.method == "POST" && request.path == "/v1/events" && request.status == 202)
        #expect(request.header("sdl-batch-id") == "batch-1" && request.bodyByteCount == body.count)
        #expect(ingest.summary.accepted == 1 && ingest.summary.rejected == 1 && ingest.summary.byStatus == [202: 1])
    }

    @Test("a repeated event_id is counted once, and listed as a duplicate")
    func deduplicatesEventIDs() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let event = Fixture.event(id: "same")
        _ = try await Fixture.post(ingest, Fixture.body([event]))
        let second = try await Fixture.post(ingest, Fixture.body([event, Fixture.event(id: "new")]))
        #expect(second.body.accepted == 1 && second.body.duplicates == 1)
        #expect(ingest.receivedEvents.map(\.eventID) == ["same", "new"])
        #expect(ingest.rawEvents.map(\.eventID) == ["same", "same", "new"])
        #expect(ingest.summary.duplicates == 1 && ingest.summary.batches == 2)
    }

    @Test("a replayed SDL-Batch-ID is answered 202 without counting again")
    func deduplicatesBatches() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let body = Fixture.body([Fixture.event(id: "a"), Fixture.event(id: "b")])
        let first = try await Fixture.post(ingest, body, headers: ["SDL-Batch-ID": "B"])
        // New event ids under the same batch id: still a replay, nothing counted.
        let replay = try await Fixture.post(ingest, Fixture.body([Fixture.event(id: "c")]), headers: ["SDL-Batch-ID": "B"])
        #expect(first.body.accepted == 2)
        #expect(replay.status == 202 && replay.body.accepted == 0 && replay.body.duplicates == 1)
        #expect(ingest.receivedEvents.count == 2 && ingest.rawEvents.count == 3)
        #expect(ingest.requests.map(\.isReplay) == [false, true])
        #expect(ingest.summary.batches == 1 && ingest.summary.replayedBatches == 1)
    }

    @Test("bodies that are not the contract's shape are 400, broken gzip too", arguments: [
        ("not json", false), ("[]", false), (#"{"events":[]}"#, false), (#"{"sent_at":1,"events":[]}"#, false), ("\u{1F}\u{8B}junk", true),
    ])
    func badRequests(text: String, gzipHeader: Bool) async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let answer = try await Fixture.post(ingest, Data(text.utf8), headers: gzipHeader ? ["Content-Encoding": "gzip"] : [:])
        #expect(answer.status == 400)
        #expect(answer.body.error?.isEmpty == false)
        #expect(ingest.summary.accepted == 0 && ingest.summary.byStatus == [400: 1])
    }

    @Test("a wrong, missing or malformed key is 401; a configured key is the only one accepted")
    func unauthorized() async throws {
        let ingest = try Fixture.ingest { $0.requiredKey = "sdl_sec_only" }
        defer { ingest.stop() }
        let body = Fixture.body([Fixture.event()])
        for authorization in ["Bearer sdl_pub_other", "Bearer nope", "Basic x", nil] as [String?] {
            let answer = try await Fixture.post(ingest, body, headers: ["Authorization": authorization])
            #expect(answer.status == 401, "\(authorization ?? "none")")
        }
        #expect(try await Fixture.post(ingest, body, headers: ["Authorization": "Bearer sdl_sec_only"]).status == 202)
    }

    @Test("a key that is not live yet is 401 until makeKeyLive()")
    func keyGoesLiveByCall() async throws {
        let ingest = try Fixture.ingest { $0.keyLiveAfter = .seconds(3_600) }
        defer { ingest.stop() }
        let body = Fixture.body([Fixture.event()])
        let early = try await Fixture.post(ingest, body)
        #expect(early.status == 401 && early.body.error?.contains("not live") == true)
        ingest.makeKeyLive()
        #expect(try await Fixture.post(ingest, body).status == 202)
    }

    @Test("a key goes live when the injected clock passes keyLiveAfter, without waiting")
    func keyGoesLiveOnTheClock() async throws {
        let clock = ManualClock()
        let ingest = try Fixture.ingest {
            $0.keyLiveAfter = .seconds(30)
            $0.clock = clock
        }
        defer { ingest.stop() }
        let body = Fixture.body([Fixture.event()])
        #expect(try await Fixture.post(ingest, body).status == 401)
        clock.advance(by: .seconds(29))
        #expect(try await Fixture.post(ingest, body).status == 401)
        clock.advance(by: .seconds(1))
        #expect(try await Fixture.post(ingest, body).status == 202)
    }

    @Test("a body over the configured limit is 413, plain or after gunzip")
    func tooLarge() async throws {
        let ingest = try Fixture.ingest { $0.maxBodyBytes = 500 }
        defer { ingest.stop() }
        let big = Fixture.body((0..<10).map { _ in Fixture.event() })
        #expect(big.count > 500)
        #expect(try await Fixture.post(ingest, big).status == 413)
        let compressed = Fixture.gzip(big)
        #expect(compressed.count < 500)
        #expect(try await Fixture.post(ingest, compressed, headers: ["Content-Encoding": "gzip"]).status == 413)
        #expect(try await Fixture.post(ingest, Fixture.body([Fixture.event()])).status == 202)
    }

    @Test("an unsupported Content-Type or Content-Encoding is 415")
    func unsupportedMedia() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let body = Fixture.body([Fixture.event()])
        #expect(try await Fixture.post(ingest, body, headers: ["Content-Type": "text/plain"]).status == 415)
        #expect(try await Fixture.post(ingest, body, headers: ["Content-Encoding": "br"]).status == 415)
        #expect(try await Fixture.post(ingest, body, headers: ["Content-Type": "application/json; charset=utf-8"]).status == 202)
    }

    @Test("a gzip body is inflated and accepted, and recorded decoded")
    func gzipBody() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let body = Fixture.body([Fixture.event(id: "z1"), Fixture.event(id: "z2")])
        let answer = try await Fixture.post(ingest, Fixture.gzip(body), headers: ["Content-Encoding": "gzip"])
        #expect(answer.status == 202 && answer.body.accepted == 2)
        #expect(ingest.requests.first?.body == [UInt8](body))
        #expect(ingest.requests.first?.header("Content-Encoding") == "gzip")
    }

    @Test("any other path is 404 and another method 405")
    func routing() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        #expect(try await Fixture.post(ingest, Fixture.body([Fixture.event()]), path: "/v1/eventsx").status == 404)
        var request = URLRequest(url: ingest.endpoint.appendingPathComponent("/v1/events"))
        request.timeoutInterval = 10
        let (_, response) = try await Fixture.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 405)
        #expect(ingest.summary.byStatus == [404: 1, 405: 1] && ingest.summary.accepted == 0)
    }

    @Test("several requests, pipelined ones too, are answered on one keep-alive connection")
    func keepAlive() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let port = ingest.port
        let statuses = try await Fixture.onOwnThread {
            let connection = try RawConnection(port: port)
            var statuses: [Int] = []
            for _ in 0..<3 {
                connection.send(RawConnection.post(Fixture.body([Fixture.event()])))
                let response = try connection.readResponse()
                #expect(response.headers["connection"] == "keep-alive")
                statuses.append(response.status)
            }
            // Two requests in one send: both answered, in order.
            connection.send(RawConnection.post(Fixture.body([Fixture.event()])) + RawConnection.post(Data(), path: "/nope"))
            statuses.append(try connection.readResponse().status)
            statuses.append(try connection.readResponse().status)
            return statuses
        }
        #expect(statuses == [202, 202, 202, 202, 404])
        #expect(ingest.receivedEvents.count == 4)
    }

    @Test("Expect: 100-continue gets 100 Continue, then the answer")
    func expectContinue() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        let port = ingest.port
        let body = Fixture.body([Fixture.event(id: "c1")])
        let (interim, final) = try await Fixture.onOwnThread {
            let connection = try RawConnection(port: port)
            connection.send(Array(RawConnection.head(bodyLength: body.count, extra: ["Expect: 100-continue"]).utf8))
            let interim = try connection.readResponse()
            connection.send([UInt8](body))
            return (interim.status, try connection.readResponse().status)
        }
        #expect(interim == 100 && final == 202)
        #expect(ingest.receivedEvents.map(\.eventID) == ["c1"])
    }

    @Test("scripted answers come first, in order, with their Retry-After, then normal handling resumes")
    func scriptedAnswers() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        ingest.script([.status(503, retryAfter: "2"), .status(429, retryAfter: "Wed, 02 Dec 2026 10:00:00 GMT", delay: .milliseconds(20))])
        let body = Fixture.body([Fixture.event()])
        let first = try await Fixture.post(ingest, body)
        let second = try await Fixture.post(ingest, body)
        let third = try await Fixture.post(ingest, body)
        #expect(first.status == 503 && first.response.value(forHTTPHeaderField: "Retry-After") == "2")
        #expect(second.status == 429 && second.response.value(forHTTPHeaderField: "retry-after") == "Wed, 02 Dec 2026 10:00:00 GMT")
        #expect(third.status == 202 && third.response.value(forHTTPHeaderField: "Retry-After") == nil)
        #expect(ingest.remainingScript.isEmpty)
        #expect(ingest.requests.map(\.isScripted) == [true, true, false])
        #expect(ingest.summary.accepted == 1 && ingest.summary.byStatus == [503: 1, 429: 1, 202: 1])
    }

    @Test("a connection closed before the request is read: no answer, nothing counted")
    func closeBeforeReading() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        ingest.script([.closeBeforeReading])
        let port = ingest.port
        let body = Fixture.body([Fixture.event(id: "lost")])
        let closed = try await Fixture.onOwnThread {
            let connection = try RawConnection(port: port)
            connection.send(RawConnection.post(body))
            return connection.isClosedByServer()
        }
        #expect(closed)
        #expect(ingest.summary.closedBeforeReading == 1 && ingest.summary.requests == 0 && ingest.receivedEvents.isEmpty)
        #expect(try await Fixture.post(ingest, body).status == 202, "the next request is handled normally")
    }

    @Test("a response dropped after counting: the events count, the client sees the connection close")
    func dropResponseAfterCounting() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        ingest.script([.dropResponseAfterCounting])
        let port = ingest.port
        let body = Fixture.body([Fixture.event(id: "counted")])
        let closed = try await Fixture.onOwnThread {
            let connection = try RawConnection(port: port)
            connection.send(RawConnection.post(body, extra: ["SDL-Batch-ID: D"]))
            return connection.isClosedByServer()
        }
        #expect(closed)
        #expect(await ingest.waitForEvents(count: 1))
        #expect(ingest.receivedEvents.map(\.eventID) == ["counted"])
        #expect(ingest.requests.first?.responseDropped == true && ingest.summary.droppedResponses == 1)
        // The client's retry of the same batch is a replay: 202, nothing counted twice.
        let retry = try await Fixture.post(ingest, body, headers: ["SDL-Batch-ID": "D"])
        #expect(retry.status == 202 && retry.body.accepted == 0)
    }

    @Test("waitForEvents wakes when events arrive and times out when they do not")
    func waiting() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        #expect(await ingest.waitForEvents(count: 1, timeout: .milliseconds(50)) == false)
        async let arrived = ingest.waitForEvents(count: 2)
        async let requested = ingest.waitForRequests(count: 1)
        async let batched = ingest.waitForBatches(count: 1)
        _ = try await Fixture.post(ingest, Fixture.body([Fixture.event(), Fixture.event()]))
        let results = await [arrived, requested, batched]
        #expect(results == [true, true, true])
        #expect(await ingest.waitForRawEvents(count: 2, timeout: .zero), "already satisfied returns at once")
        #expect(await ingest.waitForSummary { $0.byStatus[202] == 1 })
    }

    @Test("added latency delays every answer")
    func addedLatency() async throws {
        let ingest = try Fixture.ingest { $0.addedLatency = .milliseconds(150) }
        defer { ingest.stop() }
        let start = ContinuousClock.now
        #expect(try await Fixture.post(ingest, Fixture.body([Fixture.event()])).status == 202)
        // The latency, less a stated 20 ms for clocks of different granularity (the ingest's
        // sleep and this measure): an answer without the added latency takes about 1 ms here.
        #expect(ContinuousClock.now - start >= .milliseconds(150) - .milliseconds(20))
    }

    @Test("garbage on one connection is answered 400 and harms no other; stop() ends waits and closes the port")
    func garbageAndStop() async throws {
        let ingest = try Fixture.ingest()
        let port = ingest.port
        let status = try await Fixture.onOwnThread {
            let connection = try RawConnection(port: port)
            connection.send(Array("\u{0}\u{FF} garbage \r\n\r\n".utf8))
            return try connection.readResponse().status
        }
        #expect(status == 400)
        #expect(try await Fixture.post(ingest, Fixture.body([Fixture.event()])).status == 202)
        async let pending = ingest.waitForEvents(count: 100)
        ingest.stop()
        let outcome = await pending
        #expect(outcome == false)
        #expect(throws: RawConnection.Failure.connect) { try RawConnection(port: port) }
        ingest.stop()  // idempotent
    }

    @Test("a stopped ingest's port is never handed to a later port-0 ingest in this process; asked for by number, it is")
    func stoppedPortsAreNotReused() throws {
        let first = try Fixture.ingest()
        first.stop()
        var seen: Set<Int> = [first.port]
        for _ in 0..<40 {
            let next = try LocalIngest(configuration: .init(port: 0))
            next.stop()
            #expect(seen.insert(next.port).inserted, "port \(next.port) handed out twice")
        }
        // A client still pointed at the first port is refused, not answered by a neighbour...
        #expect(throws: RawConnection.Failure.connect) { try RawConnection(port: first.port) }
        // ...and an ingest restarted where it was gets its port back.
        let restarted = try LocalIngest(configuration: .init(port: first.port))
        defer { restarted.stop() }
        #expect(restarted.port == first.port)
    }

    @Test("a port in use is an error, not a crash")
    func portInUse() throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        #expect(throws: LocalIngestError.self) { try LocalIngest(configuration: .init(port: ingest.port)) }
    }
}
