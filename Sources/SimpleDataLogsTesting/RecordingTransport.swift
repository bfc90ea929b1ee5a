import Foundation
public import SimpleDataLogs

/// A ``Transport`` that is the ingest, in memory: every request is answered by the rules of
/// ``LocalIngest`` (the same code), with no socket, no port and no thread of its own.
///
/// ```swift
/// let transport = RecordingTransport()
/// let analytics = SimpleDataLogsClient(clock: ManualClock(), wallClock: SettableWallClock())
/// analytics.configure(SimpleDataLogsClient.Configuration(
///     ingestKey: "sdl_pub_test", storageDirectory: temporaryFolder, transport: transport
/// ))
/// analytics.track("order_placed")
/// await analytics.flush()
/// #expect(transport.receivedEvents.map(\.name) == ["order_placed"])
/// ```
///
/// What it checks and answers is ``LocalIngest``'s, request for request: the key (401), the
/// content type and encoding (415; gzip bodies are inflated), the size after decoding (413), the
/// body's shape (400), each event's rules (listed in the 202's `rejected`), deduplication by
/// `event_id` and `SDL-Batch-ID`, and ``script(_:)``. The host, the scheme and any path prefix of
/// the request's URL are the app's; the path must end in `/v1/events` (404 otherwise).
///
/// What needs a socket becomes a thrown ``TransportError``, as a network transport would throw it:
/// ``ScriptedAnswer/closeBeforeReading`` and ``ScriptedAnswer/dropResponseAfterCounting`` throw
/// ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/other`` (the second after counting the events), and
/// ``refuseConnections(_:)`` makes every request throw ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cannotConnect``
/// until it is switched back: an ingest that is down, or a device offline.
///
/// Delays (``ScriptedAnswer/delay``, `addedLatency`) and the key's `keyLiveAfter` run on the
/// `clock` given at creation: pass a `ManualClock` and they move only when the test says. A held
/// answer (``ScriptedAnswer/heldUntilReleased``) waits for ``releaseHeldAnswers()``. Every wait
/// honours the calling task's cancellation, as ``Transport`` requires.
///
/// After `await client.flush()` the answer has been given and recorded, so ``receivedEvents``
/// and ``requests`` can be read at once; for sends the test does not await (the backoff timer, a
/// probe), ``waitForEvents(count:timeout:)`` and its siblings suspend until the count is reached,
/// without polling, bounded by the timeout the caller gives.
///
/// A `final class` whose state is `Sendable` values behind locks: it may be shared by any number
/// of clients and tasks at once.
public final class RecordingTransport: Transport {
    private let storage: IngestStorage
    private let handler: IngestHandler
    private let clock: any Clock<Duration>
    private let state = Locked(State())

    private struct State: ParksWaiters {
        /// Tasks whose held answers wait for ``releaseHeldAnswers()``.
        var waiters = Waiters()
        var heldAnswersReleased = false
        var refusesConnections = false
        var refusedConnections = 0
        var sent: [UploadRequest] = []
    }

    /// Creates the transport; every parameter has the contract's default, as in
    /// ``LocalIngest/Configuration``.
    /// - Parameters:
    ///   - requiredKey: The one key accepted; `nil` accepts any `sdl_pub_…` or `sdl_sec_…` key.
    ///   - maxBodyBytes: The largest body accepted after gzip decoding (413 above it).
    ///   - addedLatency: Time waited on `clock` before every answer.
    ///   - keyLiveAfter: How long after creation every request gets 401 "not live yet".
    ///   - clock: The clock that delays and `keyLiveAfter` run on; pass a `ManualClock` to drive them.
    ///   - wallClock: The wall clock that each event's `ts` window is checked against.
    public init(
        requiredKey: String? = nil,
        maxBodyBytes: Int = 262_144,
        addedLatency: Duration = .zero,
        keyLiveAfter: Duration = .zero,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: any WallClock = SystemWallClock()
    ) {
        let configuration = LocalIngest.Configuration(
            requiredKey: requiredKey, maxBodyBytes: maxBodyBytes, addedLatency: addedLatency,
            keyLiveAfter: keyLiveAfter, clock: clock, wallClock: wallClock
        )
        storage = IngestStorage()
        handler = IngestHandler(configuration: configuration, storage: storage)
        self.clock = clock
    }

    // MARK: Transport

    /// Answers `request` as the ingest would, and records it.
    /// - Parameter request: The request the uploader built.
    /// - Returns: The ingest's answer: 202 with the tally, or the status a rule or the script chose.
    /// - Throws: ``TransportError``: ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cannotConnect`` while refusing
    ///   connections, ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/other`` for a scripted closed connection,
    ///   ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cancelled`` when the calling task is cancelled.
    public func send(_ request: UploadRequest) async throws -> UploadResponse {
        try Self.checkCancellation()
        let refused: Bool = state.withLock { state in
            if state.refusesConnections {
                state.refusedConnections += 1
                return true
            }
            state.sent.append(request)
            return false
        }
        if refused {
            throw TransportError(.cannotConnect, message: "RecordingTransport refuses connections (refuseConnections(true))")
        }
        if handler.shouldCloseBeforeReading() {
            throw TransportError(.other, message: "the connection was closed before the request was read (scripted)")
        }
        let reply = handler.reply(to: Self.httpRequest(for: request))
        if reply.delay > .zero {
            do {
                try await clock.sleep(for: reply.delay)
            } catch {
                throw TransportError(.cancelled, message: "the request was cancelled while its answer was delayed")
            }
        }
        if reply.isHeld {
            await state.park { $0.heldAnswersReleased }
            try Self.checkCancellation()
        }
        guard let response = reply.response else {
            throw TransportError(.other, message: "the connection was closed without an answer (scripted)")
        }
        return UploadResponse(
            status: response.status,
            headers: Dictionary(response.headers.map { ($0.name, $0.value) }) { first, _ in first },
            body: Data(response.body.utf8)
        )
    }

    /// The request as the ingest's handler reads it off a socket. Only the path's end is the
    /// contract's (`/v1/events`): the host and any prefix are wherever the app points its endpoint.
    private static func httpRequest(for request: UploadRequest) -> HTTPRequest {
        let path = request.url.path
        let target = path.hasSuffix(IngestHandler.eventsPath) ? IngestHandler.eventsPath : (path.isEmpty ? "/" : path)
        let headers = request.headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { (name: $0.key, value: $0.value) }
        let head = HTTPRequestHead(method: request.method, target: target, minorVersion: 1, headers: headers, contentLength: request.body.count)
        return HTTPRequest(head: head, body: [UInt8](request.body))
    }

    private static func checkCancellation() throws {
        if Task.isCancelled { throw TransportError(.cancelled, message: "the request was cancelled") }
    }

    // MARK: Faults

    /// Replaces the script: the next requests get these answers, one each, in order, before
    /// normal handling resumes. The same answers as ``LocalIngest/script(_:)``.
    /// - Parameter answers: The answers.
    public func script(_ answers: [ScriptedAnswer]) { storage.setScript(answers) }

    /// Adds answers to the end of the script.
    /// - Parameter answers: The answers.
    public func appendScript(_ answers: [ScriptedAnswer]) { storage.appendScript(answers) }

    /// The scripted answers not yet used.
    public var remainingScript: [ScriptedAnswer] { storage.remainingScript }

    /// Answers every request held by ``ScriptedAnswer/heldUntilReleased`` (or `isHeld`), and
    /// every later held one at once.
    public func releaseHeldAnswers() {
        let waiters = state.withLock { state in
            state.heldAnswersReleased = true
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Makes the key live now, ending `keyLiveAfter` early.
    public func makeKeyLive() { storage.makeKeyLive() }

    /// Refuses every request from now on with ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cannotConnect`` (nothing is
    /// recorded but the count, ``refusedConnections``), or stops refusing.
    /// - Parameter refusing: `true` for an ingest that is down or a device offline; `false` to
    ///   answer again.
    public func refuseConnections(_ refusing: Bool = true) {
        state.withLock { $0.refusesConnections = refusing }
    }

    /// How many requests were refused by ``refuseConnections(_:)``.
    public var refusedConnections: Int { state.withLock { $0.refusedConnections } }

    // MARK: What arrived

    /// Events counted, each `event_id` once, in arrival order.
    public var receivedEvents: [ReceivedEvent] { storage.receivedEvents }

    /// Every valid event of every request that reached a normal 202, repeats and replays included.
    public var rawEvents: [ReceivedEvent] { storage.rawEvents }

    /// Every request answered (or closed without an answer after counting), with what the ingest
    /// made of it, in the order answered. A request refused or closed before reading is not here.
    public var requests: [RecordedRequest] { storage.requests }

    /// Every request as the uploader handed it over, byte for byte (its full URL, headers and
    /// possibly gzipped body), in the order sent; refused ones are not here.
    public var sentRequests: [UploadRequest] { state.withLock { $0.sent } }

    /// The counters, as ``LocalIngest/summary`` keeps them.
    public var summary: LocalIngest.Summary { storage.summary }

    // MARK: Waiting

    /// Waits until at least `count` events have been counted (deduplicated).
    /// - Parameters:
    ///   - count: How many events.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout or cancellation.
    public func waitForEvents(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.accepted >= count }
    }

    /// Waits until at least `count` events have arrived in requests that reached a normal 202,
    /// repeats included (see ``rawEvents``).
    /// - Parameters:
    ///   - count: How many events.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout or cancellation.
    public func waitForRawEvents(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.rawEvents >= count }
    }

    /// Waits until at least `count` requests have been answered (or closed after counting).
    /// - Parameters:
    ///   - count: How many requests.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout or cancellation.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.requests >= count }
    }

    /// Waits until at least `count` batches have been counted (see ``LocalIngest/Summary/batches``).
    /// - Parameters:
    ///   - count: How many batches.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout or cancellation.
    public func waitForBatches(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.batches >= count }
    }

    /// Waits until the counters satisfy `condition`, for anything the other waits do not cover.
    /// - Parameters:
    ///   - timeout: How long to wait at most (real time).
    ///   - condition: Checked now and after every change, under the transport's lock: keep it quick.
    /// - Returns: `true` once the condition holds; `false` on timeout or cancellation.
    public func waitForSummary(timeout: Duration = .seconds(30), until condition: @escaping @Sendable (LocalIngest.Summary) -> Bool) async -> Bool {
        await storage.wait(timeout: timeout, until: condition)
    }
}
