#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif

/// The transport session's delegate: it refuses every redirect and collects each request's
/// answer, keeping at most ``maxBodyBytes`` of a body.
///
/// Why a delegate and not completion handlers: a completion handler gets the whole body, however
/// large, in memory; an edge (or anything posing as one) answering with gigabytes would take the
/// app's memory with it. Here the body stops growing at the bound, the caller gets its answer
/// then (status, headers, the bytes so far), and the rest of the transfer is read and dropped,
/// unobserved, like a cancelled send (``URLSessionTransport``). An ingest answer is a small tally:
/// 1 MiB holds the rejections of a 1,000-event batch ten times over.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// The most body bytes kept per answer.
    static let maxBodyBytes = 1 << 20

    private struct Exchange: Sendable {
        var waiter: UploadWaiter
        var body = Data()
        var overflowed = false
    }

    /// The requests in flight, by task identifier.
    private let exchanges = Locked<[Int: Exchange]>([:])
    private let maxBodyBytes: Int

    init(maxBodyBytes: Int = SessionDelegate.maxBodyBytes) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Starts following `taskIdentifier`; call before the task is resumed.
    func register(taskIdentifier: Int, waiter: UploadWaiter) {
        exchanges.withLock { $0[taskIdentifier] = Exchange(waiter: waiter) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Never followed: the redirect itself is the answer (see URLSessionTransport.init).
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflowing: (waiter: UploadWaiter, body: Data)? = exchanges.withLock { exchanges in
            guard var exchange = exchanges[dataTask.taskIdentifier], !exchange.overflowed else { return nil }
            let room = maxBodyBytes - exchange.body.count
            exchange.body.append(data.prefix(room))
            exchange.overflowed = data.count > room
            exchanges[dataTask.taskIdentifier] = exchange
            return exchange.overflowed ? (exchange.waiter, exchange.body) : nil
        }
        // Past the bound: answer now with what fits, and let the rest drain unobserved.
        if let overflowing, let response = dataTask.response {
            overflowing.waiter.finish(.success(ReceivedAnswer(body: overflowing.body, response: response)))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error, let response = task.response as? HTTPURLResponse, (error as? URLError)?.code != .cancelled {
            // The head arrived, then the body failed: a `Content-Encoding` that lies (libcurl
            // cannot inflate it), a connection cut mid-body. The status is the answer (a 202
            // means the batch was taken); reporting a failure instead had the batch resent
            // forever, each resend failing the same way (issue 23).
            exchange.waiter.finish(.success(ReceivedAnswer(body: exchange.body, response: response, bodyProblem: Self.describe(error))))
        } else if let error {
            exchange.waiter.finish(.failure(error))
        } else if let response = task.response {
            exchange.waiter.finish(.success(ReceivedAnswer(body: exchange.body, response: response)))
        } else {
            exchange.waiter.finish(.failure(URLError(.badServerResponse)))
        }
    }
}

extension SessionDelegate {
    /// An error's words for a log line: the library's description, which for a failed decoding
    /// names it ("Error while processing content unencoding: …" on Linux).
    static func describe(_ error: any Error) -> String {
        let error = error as NSError
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let text = underlying?.localizedDescription ?? error.localizedDescription
        return "\(text) (URLError \(error.code))"
    }
}

/// What a request received: the body (at most ``SessionDelegate/maxBodyBytes``), the response,
/// and why the body could not be read whole when its head arrived but the body then failed.
struct ReceivedAnswer: Sendable {
    var body: Data
    var response: URLResponse
    var bodyProblem: String?
}

/// The waiting side of one request: resumed exactly once, by the answer or by the caller's
/// cancellation, whichever comes first; a cancellation before the request starts stops it.
final class UploadWaiter: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<ReceivedAnswer, any Error>?
        var cancelled = false
    }

    private let state = Locked(State())

    /// Stores the continuation; `false` when the caller was cancelled first (the request is
    /// then not started).
    func install(_ continuation: CheckedContinuation<ReceivedAnswer, any Error>) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.continuation = continuation
            return true
        }
    }

    /// Notes the cancellation, so a request not yet started never starts.
    func markCancelled() { state.withLock { $0.cancelled = true } }

    /// Resumes the caller with `result` unless it was resumed already.
    func finish(_ result: Result<ReceivedAnswer, any Error>) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
