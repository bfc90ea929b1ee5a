import Foundation
import SimpleDataLogs

/// Turns one HTTP request into the local ingest's answer, following INGEST-API.md in this order:
/// path (404), method (405), script, key (401), content type and encoding (415), size after
/// decoding (413), body (400), then per-event rules and deduplication (202).
final class IngestHandler: SocketRequestHandler {
    /// What the connection does with a request.
    struct Reply: Sendable {
        /// The answer, or `nil` to close the connection without one.
        var response: HTTPResponse?
        /// Real time to wait before answering.
        var delay: Duration
        /// Whether the answer then waits until the test releases held answers.
        var isHeld = false
    }

    /// The contract's one path.
    static let eventsPath = "/v1/events"

    let storage: IngestStorage
    private let requiredKey: String?
    /// The body limit after decoding, in bytes.
    let maxBodyBytes: Int
    private let addedLatency: Duration
    private let keyLiveAfter: Duration
    private let elapsed: @Sendable () -> Duration
    private let nowMilliseconds: @Sendable () -> Int64

    init(configuration: LocalIngest.Configuration, storage: IngestStorage) {
        self.storage = storage
        requiredKey = configuration.requiredKey
        maxBodyBytes = configuration.maxBodyBytes
        addedLatency = configuration.addedLatency
        keyLiveAfter = configuration.keyLiveAfter
        elapsed = Self.stopwatch(configuration.clock)
        let wallClock = configuration.wallClock
        nowMilliseconds = {
            let milliseconds = (wallClock.now().timeIntervalSince1970 * 1_000).rounded(.down)
            guard milliseconds.isFinite else { return 0 }
            return Int64(max(min(milliseconds, 9.0e15), -9.0e15))
        }
    }

    /// Opens the existential once, so later reads need no generic context.
    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Whether the key has gone live (see ``LocalIngest/Configuration/keyLiveAfter``).
    var isKeyLive: Bool { storage.keyMadeLive || elapsed() >= keyLiveAfter }

    /// Whether to close a connection whose next request is starting, per the script.
    func shouldCloseBeforeReading() -> Bool { storage.takeCloseBeforeReading() }

    /// Answers a request that could not be parsed (the connection closes after it).
    func reply(to failure: HTTPRequestParser.Failure) -> HTTPResponse {
        .json(failure.status, JSONWriter.error(failure.message), keepAlive: false)
    }

    /// Decides the answer to one request, counting its events if it is accepted.
    func reply(to request: HTTPRequest) -> Reply {
        let head = request.head
        var record = RecordedRequest(
            method: head.method, path: head.path,
            headers: head.headers.map { RecordedRequest.Header(name: $0.name, value: $0.value) },
            batchID: head.header("SDL-Batch-ID").flatMap { $0.isEmpty ? nil : $0 }, bodyByteCount: request.body.count, body: request.body,
            status: 0, accepted: 0, duplicates: 0, rejections: [], isReplay: false, isScripted: false, responseDropped: false
        )
        let keepAlive = head.keepAlive
        // Set by a held scripted answer (below), before any answer is made.
        var held = false
        func answer(_ status: Int, _ body: String, headers: [(name: String, value: String)] = [], delay: Duration = .zero) -> Reply {
            record.status = status
            storage.record(record)
            return Reply(response: .json(status, body, headers: headers, keepAlive: keepAlive), delay: addedLatency + delay, isHeld: held)
        }

        guard head.path == Self.eventsPath else { return answer(404, JSONWriter.error("no such path: \(head.path)")) }
        guard head.method == "POST" else { return answer(405, JSONWriter.error("only POST"), headers: [("Allow", "POST")]) }

        var scriptedDelay = Duration.zero
        var dropResponse = false
        var paddedTo = 0
        var mislabeled = false
        if let scripted = storage.takeScriptedAnswer() {
            scriptedDelay = scripted.delay
            held = scripted.isHeld
            switch scripted.action {
            case .respond(let status, let retryAfter):
                record.isScripted = true
                let body = (200..<300).contains(status)
                    ? "{\"accepted\":0,\"duplicates\":0,\"rejected\":[]}"
                    : JSONWriter.error("scripted answer")
                return answer(status, body, headers: retryAfter.map { [("Retry-After", $0)] } ?? [], delay: scripted.delay)
            case .redirect(let status, let location):
                record.isScripted = true
                return answer(status, JSONWriter.error("moved"), headers: [("Location", location)], delay: scripted.delay)
            case .closeBeforeReading:
                // Taken here only when the script changed while this request was being read.
                record.isScripted = true
                record.responseDropped = true
                storage.record(record)
                return Reply(response: nil, delay: .zero)
            case .handleNormally:
                break
            case .dropResponseAfterCounting:
                record.isScripted = true
                dropResponse = true
            case .paddedAnswer(let bytes):
                record.isScripted = true
                paddedTo = bytes
            case .mislabeledAnswerEncoding:
                record.isScripted = true
                mislabeled = true
            }
        }
        func normalAnswer(_ status: Int, _ message: String) -> Reply {
            answer(status, JSONWriter.error(message), delay: scriptedDelay)
        }

        if let problem = keyProblem(head.header("Authorization")) { return normalAnswer(401, problem) }
        let mediaType = (head.header("Content-Type") ?? "").split(separator: ";").first.map { $0.trimmingSpaces.lowercased() } ?? ""
        guard mediaType == "application/json" else {
            return normalAnswer(415, "Content-Type must be application/json, not \(mediaType.isEmpty ? "missing" : mediaType)")
        }
        let body: [UInt8]
        switch (head.header("Content-Encoding") ?? "identity").trimmingSpaces.lowercased() {
        case "identity", "":
            guard request.body.count <= maxBodyBytes else {
                return normalAnswer(413, "the body is \(request.body.count) bytes; at most \(maxBodyBytes)")
            }
            body = request.body
        case "gzip", "x-gzip":
            switch Gzip.inflate(request.body, limit: maxBodyBytes) {
            case .success(let inflated): body = inflated
            case .failure(.tooLarge): return normalAnswer(413, "the body inflates to more than \(maxBodyBytes) bytes")
            case .failure(.corrupt(let message)): return normalAnswer(400, message)
            }
        case let encoding:
            return normalAnswer(415, "Content-Encoding \(encoding) is not supported; send gzip or nothing")
        }
        record.body = body

        switch IngestValidator.validate(body: body, nowMilliseconds: nowMilliseconds(), batchID: record.batchID) {
        case .malformed(let message):
            return normalAnswer(400, message)
        case .batch(_, let verdicts):
            record.status = 202
            record.responseDropped = dropResponse
            let tally = storage.count(verdicts, batchID: record.batchID, request: record)
            if dropResponse { return Reply(response: nil, delay: addedLatency + scriptedDelay) }
            let rejected = tally.rejections.map(\.json).joined(separator: ",")
            var json = "{\"accepted\":\(tally.accepted),\"duplicates\":\(tally.duplicates),\"rejected\":[\(rejected)]}"
            if paddedTo > json.utf8.count { json += String(repeating: " ", count: paddedTo - json.utf8.count) }
            let encoding: [(name: String, value: String)] = mislabeled ? [("Content-Encoding", "gzip")] : []
            return Reply(response: .json(202, json, headers: encoding, keepAlive: keepAlive), delay: addedLatency + scriptedDelay, isHeld: held)
        }
    }

    /// Why the `Authorization` header does not carry a live, accepted key; `nil` when it does.
    private func keyProblem(_ authorization: String?) -> String? {
        guard let authorization else { return "missing Authorization header" }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "Authorization must be Bearer {key}" }
        let key = parts[1].trimmingSpaces
        // Never echo a key in full.
        let shown = IngestKey.redacted(key)
        if let requiredKey {
            guard key == requiredKey else { return "unknown key \(shown)" }
        } else {
            guard IngestKey.kind(of: key) != nil else { return "unknown key \(shown): keys start with sdl_pub_ or sdl_sec_" }
        }
        guard isKeyLive else { return "key \(shown) is not live yet" }
        return nil
    }
}
