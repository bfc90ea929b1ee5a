extension SimpleDataLogs {
    /// The one thing the uploader needs from an HTTP library: send a request, return the answer.
    ///
    /// The SDK ships ``URLSessionTransport`` as the default. A server app that already runs an HTTP
    /// client can plug its own in, and tests plug in one that answers from memory.
    ///
    /// Contract:
    /// - `send` performs exactly one HTTP exchange: no retries, no redirects to other hosts, no
    ///   rewriting of the body or of the caller's headers (the uploader owns retrying, backoff and
    ///   compression).
    /// - Any HTTP status is a *response*, not an error: a 503 returns normally.
    /// - Failures to get a response throw a ``TransportError`` whose ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind`` tells the
    ///   uploader what happened (could not connect, timed out, cancelled, other). Any other error is
    ///   read as ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/other`` (see ``SimpleDataLogs/SimpleDataLogs/TransportError/init(classifying:)``).
    /// - `send` honours task cancellation: when the calling task is cancelled it stops waiting and
    ///   throws promptly. The uploader cancels a request whose deadline passed on its own clock;
    ///   ``SimpleDataLogs/SimpleDataLogs/UploadRequest/timeout`` is only a backstop for the library.
    /// - It may be called from several tasks at once.
    ///
    /// A complete test transport, answering from memory and recording what it was sent:
    ///
    /// ```swift
    /// final class InMemoryTransport: Transport {
    ///     private let state = Locked<(answers: [UploadResponse], sent: [UploadRequest])>(([], []))
    ///
    ///     init(answers: [UploadResponse]) { state.withLock { $0.answers = answers } }
    ///
    ///     var sent: [UploadRequest] { state.withLock { $0.sent } }
    ///
    ///     func send(_ request: UploadRequest) async throws -> UploadResponse {
    ///         try Task.checkCancellation()
    ///         return try state.withLock { state in
    ///             state.sent.append(request)
    ///             guard !state.answers.isEmpty else {
    ///                 throw TransportError(.cannotConnect, message: "no answer scripted")
    ///             }
    ///             return state.answers.removeFirst()
    ///         }
    ///     }
    /// }
    ///
    /// let transport = InMemoryTransport(answers: [UploadResponse(status: 202, body: Data(#"{"accepted":1}"#.utf8))])
    /// ```
    ///
    /// (Outside the SDK, use any lock, or an actor: `Locked` is the package's own.)
    ///
    /// A server that runs AsyncHTTPClient finds a complete transport over it, compiled and tested,
    /// in <doc:UsingItInAServer#Plug-in-your-HTTP-client>. Mind its configuration: AsyncHTTPClient
    /// follows redirects by default, which this contract forbids, so its client is made with
    /// `HTTPClient.Configuration(redirectConfiguration: .disallow)`.
    public protocol Transport: Sendable {
        /// Sends one request and returns the server's answer, whatever its status.
        /// - Parameter request: The request, complete with its headers and (possibly gzipped) body.
        /// - Returns: The status, headers and body the server answered.
        /// - Throws: A ``TransportError`` when no answer arrived: the connection failed, the backstop
        ///   timeout passed, or the calling task was cancelled.
        func send(_ request: UploadRequest) async throws -> UploadResponse
    }
}
