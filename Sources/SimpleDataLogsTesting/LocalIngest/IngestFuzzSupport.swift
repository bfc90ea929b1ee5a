import SDLJSON
/// Package-level doors into the local ingest's parsers, for the libFuzzer target
/// `Tests/Fuzz/FuzzIngestRequest`. Thin wrappers only: the harness must exercise exactly the code
/// the ingest runs. Nothing in the package calls these.
package enum IngestFuzzSupport {
    /// One complete request, flattened to values the harness can compare.
    package struct Request: Sendable, Equatable {
        package var method: String
        package var target: String
        package var path: String
        package var minorVersion: Int
        package var headers: [[String]]
        package var contentLength: Int
        package var keepAlive: Bool
        package var expectsContinue: Bool
        package var body: [UInt8]
    }

    /// What one call of ``HTTPRequestParser/next()`` returned (`needMoreData` is left out).
    package enum Step: Sendable, Equatable {
        /// A head whose body is pending (the `100-continue` moment).
        case head(method: String, target: String, contentLength: Int)
        case request(Request)
        /// The stream broke: the answer's status and message.
        case failure(status: Int, message: String)
    }

    /// What a whole feeding produced.
    package struct Outcome: Sendable, Equatable {
        package var steps: [Step]
        /// ``HTTPRequestParser/isIdle`` after the last byte.
        package var idle: Bool
        /// Whether every `next()` after a failure returned the same failure.
        package var failureSticky: Bool
    }

    /// Feeds `chunks` to one parser in order, draining every step after each chunk.
    /// - Parameters:
    ///   - chunks: The byte stream, as it arrives.
    ///   - maxHeadBytes: The parser's head cap (`nil`: the default).
    ///   - maxBodyBytes: The parser's body cap (`nil`: the default).
    ///   - compactionThreshold: Consumed bytes before the parser compacts its buffer (`nil`: the
    ///     ingest's 64 KiB). A small one reaches compaction without a 64 KiB stream, which costs
    ///     the fuzzer dearly under coverage instrumentation.
    package static func parse(
        chunks: [ArraySlice<UInt8>], maxHeadBytes: Int?, maxBodyBytes: Int?, compactionThreshold: Int? = nil
    ) -> Outcome {
        var limits = HTTPRequestParser.Limits()
        if let maxHeadBytes { limits.maxHeadBytes = maxHeadBytes }
        if let maxBodyBytes { limits.maxBodyBytes = maxBodyBytes }
        var parser = HTTPRequestParser(
            limits: limits, compactionThreshold: compactionThreshold ?? HTTPRequestParser.defaultCompactionThreshold
        )
        var steps: [Step] = []
        var sticky = true
        feeding: for chunk in chunks {
            parser.append(chunk)
            while true {
                switch parser.next() {
                case .needMoreData:
                    continue feeding
                case .head(let head):
                    steps.append(.head(method: head.method, target: head.target, contentLength: head.contentLength))
                case .request(let request):
                    steps.append(.request(flatten(request)))
                case .failure(let failure):
                    steps.append(.failure(status: failure.status, message: failure.message))
                    parser.append(chunk)
                    if parser.next() != .failure(failure) { sticky = false }
                    break feeding
                }
            }
        }
        return Outcome(steps: steps, idle: parser.isIdle, failureSticky: sticky)
    }

    /// ``IngestValidator/validate(body:nowMilliseconds:batchID:)``, summarized: `nil` when the body
    /// is a well-formed batch, else the 400 message; `verdicts` counts the events judged.
    package static func validate(body: [UInt8], nowMilliseconds: Int64, batchID: String?) -> (malformed: String?, verdicts: Int) {
        switch IngestValidator.validate(body: body, nowMilliseconds: nowMilliseconds, batchID: batchID) {
        case .malformed(let message): return (message, 0)
        case .batch(_, let verdicts): return (nil, verdicts.count)
        }
    }

    /// Whether ``JSONWriter/quoted(_:)`` of `string` reads back through ``JSONParser`` as `string`.
    package static func quotedStringRoundTrips(_ string: String) -> Bool {
        JSONParser.parse(Array(JSONWriter.quoted(string).utf8)) == .success(.string(string))
    }

    /// Whether the error body ``JSONWriter/error(_:)`` for `message` is a JSON object holding it.
    package static func errorBodyRoundTrips(_ message: String) -> Bool {
        JSONParser.parse(Array(JSONWriter.error(message).utf8)) == .success(.object(["error": .string(message)]))
    }

    private static func flatten(_ request: HTTPRequest) -> Request {
        let head = request.head
        return Request(
            method: head.method, target: head.target, path: head.path, minorVersion: head.minorVersion,
            headers: head.headers.map { [$0.name, $0.value] }, contentLength: head.contentLength,
            keepAlive: head.keepAlive, expectsContinue: head.expectsContinue, body: request.body
        )
    }
}
