import Foundation

/// What to do with a batch after one try: the client's answer table of INGEST-API.md ("What the
/// client does with each answer"), as a pure function.
///
/// | answer | attempt | action |
/// | --- | --- | --- |
/// | 202 | any | ``Action/delete(rejected:)`` with the body's `rejected` list; an unreadable body (``unreadableBody(of:)``) still deletes (the edge took the batch) |
/// | 401 | any | ``Action/pauseForKey``: stop sending, log one configuration error, probe per ``KeyProbeSchedule`` |
/// | 413 | more than one event | ``Action/split``: two new batches, each half, written before the parent is deleted |
/// | 413 | one event (or none) | ``Action/dropTooLarge``: the event can never fit; drop it with a log line |
/// | 415 | body was gzipped | ``Action/resendUncompressed``: try the same batch once more without compression |
/// | 415 | body was not gzipped | ``Action/setAside(reason:)`` with ``SetAsideReason/unsupportedMediaType(message:)`` *(clarified)* |
/// | 400 | any | ``Action/setAside(reason:)`` with ``SetAsideReason/malformedBody(message:)`` *(clarified)*: the same bytes cannot do better |
/// | any other status (429, 5xx, other 4xx, 1xx/2xx/3xx other than 202) | any | ``Action/backOff(retryAfter:)`` with the parsed `Retry-After`, if any |
/// | no answer (cannot connect, timeout, cancelled, other) | any | ``Action/backOff(retryAfter:)`` with `nil` |
///
/// Call it once per try:
///
/// ```swift
/// let outcome: AnswerPolicy.Outcome
/// do { outcome = .answered(try await transport.send(request)) }
/// catch { outcome = .failed(TransportError(classifying: error)) }
/// let action = AnswerPolicy.action(for: outcome,
///                                  attempt: .init(wasGzipped: request.isGzipped, eventCount: payloads.count),
///                                  now: wallClock.now())
/// ```
///
/// The policy does not count failures or schedule anything: ``Backoff`` and ``KeyProbeSchedule``
/// do, fed by the action.
enum AnswerPolicy {
    /// What happened to the try.
    enum Outcome: Sendable, Equatable {
        /// The server answered (any status).
        case answered(UploadResponse)
        /// No answer arrived.
        case failed(TransportError)
    }

    /// What the try was, as far as the answer's meaning depends on it.
    struct Attempt: Sendable, Equatable {
        /// Whether the body was sent gzipped (`Content-Encoding: gzip`).
        var wasGzipped: Bool
        /// How many events the batch holds.
        var eventCount: Int
        /// The body's size before compression.
        var bodyBytes: Int

        /// Creates an attempt.
        /// - Parameters:
        ///   - wasGzipped: Whether the body was gzipped.
        ///   - eventCount: The batch's event count.
        ///   - bodyBytes: The body's size before compression; 0 when it does not matter.
        init(wasGzipped: Bool, eventCount: Int, bodyBytes: Int = 0) {
            self.wasGzipped = wasGzipped
            self.eventCount = eventCount
            self.bodyBytes = bodyBytes
        }
    }

    /// Why a batch is set aside: kept on disk, not sent again, and the outbox moves on.
    enum SetAsideReason: Sendable, Hashable {
        /// 400: the edge read the body as not JSON of the contract's shape.
        case malformedBody(message: String?)
        /// 415 to an uncompressed body: the edge takes neither this content type nor encoding.
        case unsupportedMediaType(message: String?)
    }

    /// What the uploader does next with the batch.
    enum Action: Sendable, Hashable {
        /// 202: delete the batch file; report and log `rejected`, never resend those events.
        case delete(rejected: [Rejection])
        /// 401: pause all sending until the next key probe.
        case pauseForKey
        /// 413 with several events: split the batch in half and send both halves.
        case split
        /// 413 with one event: drop it with a log line; it can never fit.
        case dropTooLarge
        /// 415 to a gzip body: send the same batch again uncompressed.
        case resendUncompressed
        /// 400, or 415 to an uncompressed body: keep the batch aside and move on.
        case setAside(reason: SetAsideReason)
        /// Anything else: wait per ``Backoff``, at least `retryAfter` when the server gave one.
        case backOff(retryAfter: Duration?)
    }

    /// Decides what to do after one try.
    /// - Parameters:
    ///   - outcome: The answer, or why there was none.
    ///   - attempt: Whether the body was gzipped and how many events the batch holds.
    ///   - now: The wall clock's time, to read a `Retry-After` HTTP-date.
    /// - Returns: The action.
    static func action(for outcome: Outcome, attempt: Attempt, now: Date) -> Action {
        guard case .answered(let response) = outcome else { return .backOff(retryAfter: nil) }
        switch response.status {
        case 202:
            return .delete(rejected: rejections(in: response.body))
        case 401:
            return .pauseForKey
        case 413:
            // Split, as the contract says. But a single event is dropped only when its body is
            // over the contract's limit: one within it cannot be too large for the edge, so the
            // 413 came from something in between (a proxy's smaller limit) and the event is kept
            // and retried with backoff instead of being dropped at full speed.
            if attempt.eventCount > 1 { return .split }
            return attempt.bodyBytes > EventLimits.maxBodyBytes ? .dropTooLarge : .backOff(retryAfter: nil)
        case 415:
            return attempt.wasGzipped
                ? .resendUncompressed
                : .setAside(reason: .unsupportedMediaType(message: errorMessage(in: response.body)))
        case 400:
            return .setAside(reason: .malformedBody(message: errorMessage(in: response.body)))
        default:
            return .backOff(retryAfter: response.header("Retry-After").flatMap { RetryAfter.parse($0, now: now) })
        }
    }

    /// The `rejected` list of a 202 body; empty when the body is empty or unreadable.
    /// - Parameter body: The 202's body.
    /// - Returns: The rejections, in the body's order.
    static func rejections(in body: Data) -> [Rejection] {
        struct Accepted: Decodable { var rejected: [Rejection]? }
        return (try? JSONDecoder().decode(Accepted.self, from: body))?.rejected ?? []
    }

    /// Why an answer's body cannot be read as the contract's JSON, or `nil` when it can (an
    /// empty body is a tally with nothing in it). For a 202 this changes nothing but a log line:
    /// the status says the batch was taken, so it is deleted, with any rejections unknown.
    /// - Parameter response: The answer.
    /// - Returns: The reason, for the log line.
    static func unreadableBody(of response: UploadResponse) -> String? {
        if let problem = response.bodyProblem { return problem }
        guard !response.body.isEmpty else { return nil }
        // Any JSON object is a tally (its fields are optional); anything else is not.
        struct Object: Decodable {}
        guard (try? JSONDecoder().decode(Object.self, from: response.body)) != nil else {
            let encoding = response.header("Content-Encoding").map { ", Content-Encoding \($0)" } ?? ""
            return "\(response.body.count) bytes that are not a JSON object\(encoding)"
        }
        return nil
    }

    /// The `error` text of an error body, for the log line; `nil` when there is none.
    /// - Parameter body: The error answer's body.
    /// - Returns: The message, cut to one line of at most 200 characters.
    static func errorMessage(in body: Data) -> String? {
        struct Failure: Decodable { var error: String? }
        guard let text = (try? JSONDecoder().decode(Failure.self, from: body))?.error else { return nil }
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return String(oneLine.prefix(200))
    }
}
