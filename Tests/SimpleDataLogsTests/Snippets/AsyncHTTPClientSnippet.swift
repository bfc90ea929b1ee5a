// UsingItInAServer.md's AsyncHTTPClient transport, compiled against stand-ins with the signatures
// of AsyncHTTPClient 1.33.1 and swift-nio 2.101 (read from their sources), and its logic tested.
//
// What the recipe relies on, from that source:
// - `HTTPClient.Configuration(redirectConfiguration:)`; `RedirectConfiguration.disallow`: with it,
//   `executeAndFollowRedirectsIfNeeded` (`AsyncAwait/HTTPClient+execute.swift`) gets no
//   `RedirectState` and returns the 3xx itself. The default follows up to 5 redirects, and a `.bytes`
//   body can be sent again, so the request (key and all) would go where `Location` says.
// - `execute(_:timeout:logger:)`; `TimeAmount(_ duration: Swift.Duration)` (NIOCore).
// - `HTTPClientRequest.Body.bytes(_:)` takes any `RandomAccessCollection & Sendable` of `UInt8`
//   (`Data`); `HTTPMethod(rawValue:)`; `HTTPHeaders.add(name:value:)`, a sequence of
//   `(name, value)`; `HTTPClientResponse.body` an `AsyncSequence` of `ByteBuffer`. Ending the loop
//   over it ends the exchange (`Transaction.httpResponseStreamTerminated`), so the rest of a body
//   past the bound is never read.
// - Errors: a refused connection is retried with backoff until the connect timeout, then fails with
//   the last connect error, `NIOConnectionError` (NIOPosix, `HappyEyeballs.swift`) or
//   `HTTPClientError.connectTimeout`; a request no connection took in time fails with
//   `getConnectionFromPoolTimeout`; the `timeout` passing is `deadlineExceeded`; `readTimeout` and
//   `writeTimeout` are the configured idle timeouts. Cancelling the task cancels the request, and a
//   request still queued fails with the pool's *last connect error* if there was one
//   (`HTTPConnectionPool+HTTP1StateMachine.cancelRequest`), else `HTTPClientError.cancelled`: so the
//   recipe asks `Task.isCancelled` first.
import Foundation
import SimpleDataLogs
import Testing

/// The recipe and the stand-ins it compiles against, in a namespace of their own.
private enum AsyncHTTPClientSnippet {
    // MARK: - Stand-ins (swift-nio)

    struct TimeAmount: Sendable, Equatable {
        var nanoseconds: Int64
        init(_ duration: Swift.Duration) {
            let (seconds, attoseconds) = duration.components
            nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
    }

    struct ByteBuffer: Sendable {
        var readableBytesView: [UInt8]
    }

    struct HTTPMethod: Sendable, Equatable {
        var rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        static let GET = HTTPMethod(rawValue: "GET")
    }

    struct HTTPHeaders: Sequence, Sendable {
        var fields: [(name: String, value: String)] = []
        mutating func add(name: String, value: String) { fields.append((name, value)) }
        func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
    }

    struct HTTPResponseStatus: Sendable {
        var code: UInt
    }

    struct NIOConnectionError: Error {
        var host: String
        var port: Int
    }

    // MARK: - Stand-ins (AsyncHTTPClient)

    struct HTTPClientError: Error, Equatable, CustomStringConvertible {
        private var code: String
        var description: String { "HTTPClientError.\(code)" }
        static let connectTimeout = HTTPClientError(code: "connectTimeout")
        static let getConnectionFromPoolTimeout = HTTPClientError(code: "getConnectionFromPoolTimeout")
        static let tlsHandshakeTimeout = HTTPClientError(code: "tlsHandshakeTimeout")
        static let socksHandshakeTimeout = HTTPClientError(code: "socksHandshakeTimeout")
        static let httpProxyHandshakeTimeout = HTTPClientError(code: "httpProxyHandshakeTimeout")
        static let deadlineExceeded = HTTPClientError(code: "deadlineExceeded")
        static let readTimeout = HTTPClientError(code: "readTimeout")
        static let writeTimeout = HTTPClientError(code: "writeTimeout")
        static let cancelled = HTTPClientError(code: "cancelled")
        static let remoteConnectionClosed = HTTPClientError(code: "remoteConnectionClosed")
    }

    struct HTTPClientRequest: Sendable {
        struct Body: Sendable {
            var bytes: [UInt8]
            static func bytes<Bytes: RandomAccessCollection & Sendable>(_ bytes: Bytes) -> Self where Bytes.Element == UInt8 {
                Body(bytes: Array(bytes))
            }
        }

        var url: String
        var method = HTTPMethod.GET
        var headers = HTTPHeaders()
        var body: Body?
        init(url: String) { self.url = url }
    }

    struct HTTPClientResponse: Sendable {
        /// The body as chunks, then an optional failure; counts the chunks read.
        struct Body: AsyncSequence, Sendable {
            typealias Element = ByteBuffer
            var chunks: [ByteBuffer]
            var failure: HTTPClientError?
            var chunksRead: Locked<Int>

            struct AsyncIterator: AsyncIteratorProtocol {
                var body: Body
                var next = 0
                mutating func next() async throws -> ByteBuffer? {
                    guard next < body.chunks.count else {
                        if let failure = body.failure { throw failure }
                        return nil
                    }
                    defer { next += 1 }
                    body.chunksRead.withLock { $0 += 1 }
                    return body.chunks[next]
                }
            }

            func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
        }

        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: Body
    }

    final class HTTPClient: Sendable {
        struct Configuration: Sendable {
            enum RedirectConfiguration: Sendable, Equatable {
                case disallow
                case follow(max: Int, allowCycles: Bool)
            }

            var redirectConfiguration: RedirectConfiguration
            init(redirectConfiguration: RedirectConfiguration? = nil) {
                self.redirectConfiguration = redirectConfiguration ?? .follow(max: 5, allowCycles: false)
            }
        }

        enum EventLoopGroupProvider: Sendable { case singleton }

        let configuration: Configuration
        private let answer: @Sendable (HTTPClientRequest, TimeAmount) async throws -> HTTPClientResponse

        init(eventLoopGroupProvider: EventLoopGroupProvider, configuration: Configuration = Configuration()) {
            self.configuration = configuration
            answer = { _, _ in throw HTTPClientError.connectTimeout }
        }

        /// The tests' client: answers as told.
        init(answer: @escaping @Sendable (HTTPClientRequest, TimeAmount) async throws -> HTTPClientResponse) {
            configuration = Configuration(redirectConfiguration: .disallow)
            self.answer = answer
        }

        func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
            try await answer(request, timeout)
        }

        func shutdown() async throws {}
    }

    // MARK: - The recipe ("Plug in your HTTP client")

    /// Sends the SDK's requests with AsyncHTTPClient, as the transport contract asks: one exchange,
    /// no redirect followed, failures sorted into their kinds, cancellation honoured, bodies bounded.
    struct AsyncHTTPClientTransport: Transport {
        /// A client made with `redirectConfiguration: .disallow`.
        let client: HTTPClient
        /// The most answer bytes kept: an ingest answer is a small tally.
        var maxBodyBytes = 1 << 20

        func send(_ request: UploadRequest) async throws -> UploadResponse {
            var outgoing = HTTPClientRequest(url: request.url.absoluteString)
            outgoing.method = HTTPMethod(rawValue: request.method)
            for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
            outgoing.body = .bytes(request.body)
            let response: HTTPClientResponse
            do {
                response = try await client.execute(outgoing, timeout: TimeAmount(request.timeout))
            } catch {
                throw Self.transportError(for: error)
            }
            var body = Data()
            var bodyProblem: String?
            do {
                for try await chunk in response.body {
                    body.append(contentsOf: chunk.readableBytesView.prefix(maxBodyBytes - body.count))
                    if body.count == maxBodyBytes { break }   // ends the exchange: the rest is never read
                }
            } catch {
                if Task.isCancelled { throw TransportError(.cancelled, message: "the request was cancelled") }
                bodyProblem = String(describing: error)   // the head arrived: its status is the answer
            }
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            return UploadResponse(status: Int(response.status.code), headers: headers, body: body, bodyProblem: bodyProblem)
        }

        /// Sorts what `execute` threw into the SDK's kinds. Cancellation first: a request cancelled
        /// while it waits for a connection fails with the last connect error.
        static func transportError(for error: any Error) -> TransportError {
            if Task.isCancelled { return TransportError(.cancelled, message: "the request was cancelled") }
            let message = String(describing: error)
            let notConnected: [HTTPClientError] = [
                .connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
            ]
            switch error {
            case is NIOConnectionError:
                return TransportError(.cannotConnect, message: message)
            case let error as HTTPClientError where notConnected.contains(error):
                return TransportError(.cannotConnect, message: message)
            case let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .writeTimeout].contains(error):
                return TransportError(.timedOut, message: message)
            case let error as HTTPClientError where error == .cancelled:
                return TransportError(.cancelled, message: message)
            default:
                return TransportError(.other, message: message)
            }
        }
    }

    func serverAsyncHTTPClient(analytics: SimpleDataLogsClient) async throws {
        let httpClient = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(redirectConfiguration: .disallow)
        )
        var configuration = SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_…")
        configuration.transport = AsyncHTTPClientTransport(client: httpClient)
        analytics.configure(configuration)
        // … and on the way out: analytics first (its last send uses the HTTP client), then the client.
        await analytics.shutdown()
        try await httpClient.shutdown()
    }
}

// MARK: - The tests

@Suite("Docs: the AsyncHTTPClient transport recipe", .stuckTestLimit)
struct AsyncHTTPClientRecipeTests {
    private typealias Snippet = AsyncHTTPClientSnippet
    private typealias Recipe = AsyncHTTPClientSnippet.AsyncHTTPClientTransport

    private static let request = UploadRequest(
        url: URL(string: "https://edge.example/v1/events")!,
        headers: ["Authorization": "Bearer sdl_sec_x", "Content-Type": "application/json", "Content-Encoding": "gzip", "SDL-Batch-ID": "b-1"],
        body: Data([0x1f, 0x8b, 0x00, 0x01]), timeout: .milliseconds(2_500)
    )

    private static func response(
        status: UInt = 202, headers: [(String, String)] = [], chunks: [[UInt8]] = [], failure: Snippet.HTTPClientError? = nil
    ) -> Snippet.HTTPClientResponse {
        Snippet.HTTPClientResponse(
            status: Snippet.HTTPResponseStatus(code: status), headers: Snippet.HTTPHeaders(fields: headers.map { (name: $0.0, value: $0.1) }),
            body: .init(chunks: chunks.map(Snippet.ByteBuffer.init), failure: failure, chunksRead: Locked(0))
        )
    }

    /// The kind the recipe gives `error`, asked from a task that is, or is not, cancelled.
    private static func kind(of error: any Error, cancelled: Bool = false) async -> TransportError.Kind {
        await Task {
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            return Recipe.transportError(for: error).kind
        }.value
    }

    @Test("the setup turns redirects off; the SDK's stand-in default, like AsyncHTTPClient's, would follow them")
    func redirectsOff() {
        let client = Snippet.HTTPClient(eventLoopGroupProvider: .singleton, configuration: Snippet.HTTPClient.Configuration(redirectConfiguration: .disallow))
        #expect(client.configuration.redirectConfiguration == .disallow)
        #expect(Snippet.HTTPClient.Configuration().redirectConfiguration != .disallow)
    }

    @Test("no connection made is cannotConnect; the timeouts are timedOut; a cancelled task is cancelled whatever the pool says; the rest is other")
    func errorKinds() async {
        let connect = Snippet.NIOConnectionError(host: "edge.example", port: 443)
        #expect(await Self.kind(of: connect) == .cannotConnect)
        for error in [Snippet.HTTPClientError.connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout] {
            #expect(await Self.kind(of: error) == .cannotConnect, "\(error)")
        }
        for error in [Snippet.HTTPClientError.deadlineExceeded, .readTimeout, .writeTimeout] {
            #expect(await Self.kind(of: error) == .timedOut, "\(error)")
        }
        #expect(await Self.kind(of: Snippet.HTTPClientError.cancelled) == .cancelled)
        #expect(await Self.kind(of: connect, cancelled: true) == .cancelled, "a cancelled wait for a connection fails with the last connect error")
        #expect(await Self.kind(of: Snippet.HTTPClientError.remoteConnectionClosed) == .other)
        #expect(await Self.kind(of: CocoaError(.fileNoSuchFile)) == .other)
        #expect(Recipe.transportError(for: Snippet.HTTPClientError.readTimeout).message == "HTTPClientError.readTimeout", "the library's words, for the log line")
    }

    @Test("a send throws the sorted error; a 3xx comes back as the answer; method, headers, body and timeout go out unchanged")
    func sendsOneExchange() async throws {
        let sent = Locked<[Snippet.HTTPClientRequest]>([])
        let timeouts = Locked<[Snippet.TimeAmount]>([])
        let failing = Recipe(client: Snippet.HTTPClient { _, _ in throw Snippet.HTTPClientError.deadlineExceeded })
        let error = await #expect(throws: TransportError.self) { try await failing.send(Self.request) }
        #expect(error?.kind == .timedOut)

        let redirected = Recipe(client: Snippet.HTTPClient { request, timeout in
            sent.withLock { $0.append(request) }
            timeouts.withLock { $0.append(timeout) }
            return Self.response(status: 308, headers: [("Location", "http://elsewhere.example/"), ("Retry-After", "5"), ("Vary", "a"), ("Vary", "b")])
        })
        let answer = try await redirected.send(Self.request)
        #expect(answer.status == 308 && answer.header("location") == "http://elsewhere.example/" && answer.header("vary") == "a, b")
        let outgoing = try #require(sent.withLock { $0.first })
        #expect(sent.withLock { $0.count } == 1, "one exchange")
        #expect(outgoing.url == "https://edge.example/v1/events" && outgoing.method.rawValue == "POST")
        #expect(Dictionary(uniqueKeysWithValues: outgoing.headers.map { ($0.name, $0.value) }) == Self.request.headers, "no header added or dropped")
        #expect(outgoing.body?.bytes == [0x1f, 0x8b, 0x00, 0x01])
        #expect(timeouts.withLock { $0 } == [Snippet.TimeAmount(.milliseconds(2_500))])
    }

    @Test("the body is kept up to the bound and the rest is never read; a body that fails after the head keeps the status, with the problem")
    func boundedBody() async throws {
        let big = Self.response(chunks: [[UInt8](repeating: 1, count: 600), [UInt8](repeating: 2, count: 600), [UInt8](repeating: 3, count: 600)])
        var recipe = Recipe(client: Snippet.HTTPClient { _, _ in big })
        recipe.maxBodyBytes = 1_000
        let bounded = try await recipe.send(Self.request)
        #expect(bounded.body.count == 1_000 && bounded.body.last == 2 && bounded.bodyProblem == nil)
        #expect(big.body.chunksRead.withLock { $0 } == 2, "the third chunk is never asked for")

        let cut = Recipe(client: Snippet.HTTPClient { _, _ in Self.response(chunks: [Array(#"{"acc"#.utf8)], failure: .remoteConnectionClosed) })
        let answer = try await cut.send(Self.request)
        #expect(answer.status == 202 && answer.body == Data(#"{"acc"#.utf8))
        #expect(answer.bodyProblem == "HTTPClientError.remoteConnectionClosed")

        #expect(Recipe(client: Snippet.HTTPClient { _, _ in big }).maxBodyBytes == 1 << 20, "1 MiB by default, as the URLSession transport")
    }
}
