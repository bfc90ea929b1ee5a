import Dispatch
#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

extension SimpleDataLogs {
    /// The default ``Transport``: Foundation's `URLSession`, one long-lived session for the client's
    /// whole life.
    ///
    /// Why one session: on Linux each session holds its own libcurl handles and about three file
    /// descriptors, and a new session per request opens a new connection each time. One session
    /// keeps the connection alive across batches. Call ``invalidate()`` when the client shuts down.
    ///
    /// Timeouts: ``SimpleDataLogs/SimpleDataLogs/UploadRequest/timeout`` becomes `URLRequest.timeoutInterval`, set through the
    /// property (on Linux the initializer's `timeoutInterval:` is ignored) and rounded up to whole
    /// seconds, at least 1 (Linux truncates to whole seconds, and below 1 s fails at once). It is
    /// only a backstop: the uploader cancels the calling task when its own deadline passes, and
    /// ``send(_:)`` then throws ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cancelled`` at once.
    public final class URLSessionTransport: Transport {
        private let session: URLSession
        private let delegate: SessionDelegate

        /// Creates the transport with its session.
        ///
        /// Redirects are never followed: a `3xx` is returned to the uploader as the answer, which
        /// backs off and keeps the batch. Following one would send the `Authorization` header (the
        /// ingest key, in full) to whatever host the `Location` names, over plain HTTP if it says so,
        /// and on Linux a 307/308 would also lose the body.
        ///
        /// At most 1 MiB of an answer's body is kept (``SimpleDataLogs/SimpleDataLogs/UploadResponse/body``); an ingest answer is a
        /// small tally, and a larger one is not allowed to take the app's memory.
        /// - Parameter configuration: The session's configuration; an ephemeral one (no cookies, no
        ///   cache on disk) by default. Proxies and TLS settings go here.
        public init(configuration: URLSessionConfiguration = .ephemeral) {
            delegate = SessionDelegate()
            session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }

        /// Sends the request with `upload(for:from:)`.
        /// - Parameter request: The request; its headers are sent unchanged, `Content-Type` included.
        /// - Returns: The status, headers and body. When the head arrived but the body then failed (a
        ///   `Content-Encoding` that lies, a connection cut mid-body), the answer still comes back,
        ///   with ``SimpleDataLogs/SimpleDataLogs/UploadResponse/bodyProblem`` saying why: its status is what the server decided.
        /// - Throws: ``TransportError``: ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cannotConnect`` when refused or offline,
        ///   ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/timedOut`` after the backstop timeout,
        ///   ``SimpleDataLogs/SimpleDataLogs/TransportError/Kind/cancelled`` when the calling task is cancelled.
        public func send(_ request: UploadRequest) async throws -> UploadResponse {
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            // The setter, not the initializer: only the setter takes effect on Linux.
            urlRequest.timeoutInterval = TimeInterval(Self.backstopSeconds(for: request.timeout))
            for (name, value) in request.headers {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
            try checkCancellation()
            let received: ReceivedAnswer
            do {
                received = try await upload(urlRequest, body: request.body)
            } catch {
                // A cancelled task can surface as URLError.cancelled or as another error racing it;
                // the cancellation is what the caller asked for, so it wins.
                if Task.isCancelled { throw TransportError(.cancelled, message: "the request was cancelled") }
                throw Self.classify(error)
            }
            guard let http = received.response as? HTTPURLResponse else {
                throw TransportError(.other, message: "the answer was not an HTTP response")
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            return UploadResponse(status: http.statusCode, headers: headers, body: received.body, bodyProblem: received.bodyProblem)
        }

        /// Sends one request through the session's delegate, with a cancellation that cannot
        /// deadlock or trap.
        ///
        /// Why not `URLSession.upload(for:from:)`: it buffers the whole body (see ``SessionDelegate``),
        /// and on Linux cancelling the task that awaits it runs `URLSessionTask.cancel()` inside the
        /// cancellation handler, under the Swift task's status lock, and that call waits for the
        /// session's work queue; if the queue is at that moment finishing the same request, it waits
        /// for the status lock to resume the task: a deadlock (swift-corelibs-foundation issue 5412;
        /// it hung our suite when the uploader's deadline raced an answer). Calling `cancel()` later,
        /// off the lock, is no cure: a cancel that lands while the request completes traps inside
        /// FoundationNetworking ("a task that is not in the registry"; it crashed our suite too). So a
        /// cancelled send stops *waiting*: it throws at once, and the request runs on, unobserved, to
        /// its answer or its backstop timeout. That is safe because every batch is idempotent
        /// (`SDL-Batch-ID`): an answer nobody reads leaves the batch on disk, and its resend is
        /// deduplicated. The same code runs on Apple platforms, so both behave alike.
        private func upload(_ urlRequest: URLRequest, body: Data) async throws -> ReceivedAnswer {
            let waiter = UploadWaiter()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ReceivedAnswer, any Error>) in
                    guard waiter.install(continuation) else {
                        return continuation.resume(throwing: CancellationError())
                    }
                    let task = session.uploadTask(with: urlRequest, from: body)
                    delegate.register(taskIdentifier: task.taskIdentifier, waiter: waiter)
                    task.resume()
                }
            } onCancel: {
                // Resuming a continuation here is allowed (it only schedules the task). What must
                // not happen here is calling into URLSession (`cancel()`), which waits for its queue.
                // Marked first, so a cancellation that arrives before `install` is seen there.
                waiter.markCancelled()
                waiter.finish(.failure(CancellationError()))
            }
        }

        /// Lets requests in flight finish, then releases the session's connections and handles. Call
        /// it once, at shutdown, after the uploader's last ``send(_:)``; the transport must not be
        /// used afterwards.
        public func invalidate() {
            session.finishTasksAndInvalidate()
        }

        private func checkCancellation() throws {
            if Task.isCancelled { throw TransportError(.cancelled, message: "the request was cancelled before it started") }
        }

        /// The backstop timeout in whole seconds: rounded up, at least 1.
        /// - Parameter timeout: The request's timeout.
        /// - Returns: Seconds for `URLRequest.timeoutInterval`.
        static func backstopSeconds(for timeout: Duration) -> Int64 {
            let (seconds, attoseconds) = timeout.components
            let roundedUp = attoseconds > 0 ? seconds + 1 : seconds
            return max(1, roundedUp)
        }

        /// Reads a `URLSession` error.
        /// - Parameter error: What `upload(for:from:)` threw.
        /// - Returns: The transport error for the uploader.
        static func classify(_ error: any Error) -> TransportError {
            if error is CancellationError { return TransportError(classifying: error) }
            guard let urlError = error as? URLError else { return TransportError(.other, message: String(describing: error)) }
            let message = "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
            switch urlError.code {
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .internationalRoamingOff,
                 .dataNotAllowed, .callIsActive:
                return TransportError(.cannotConnect, message: message)
            case .timedOut:
                return TransportError(.timedOut, message: message)
            case .cancelled:
                return TransportError(.cancelled, message: message)
            default:
                return TransportError(.other, message: message)
            }
        }
    }
}
