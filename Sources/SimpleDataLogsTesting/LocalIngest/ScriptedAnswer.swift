/// One scripted answer: what ``LocalIngest`` does with the next request instead of (or on top
/// of) its normal handling. Scripts are consumed one per request to `/v1/events`, in order.
///
/// ```swift
/// ingest.script([
///     .status(503, retryAfter: "2"),
///     .status(429, retryAfter: "Wed, 02 Dec 2026 10:00:00 GMT", delay: .milliseconds(50)),
///     .dropResponseAfterCounting,
/// ])
/// ```
public struct ScriptedAnswer: Sendable, Hashable {
    /// What happens to the request.
    public enum Action: Sendable, Hashable {
        /// Answer this status without looking at the request or counting anything. The body is
        /// `{"error": "scripted answer"}`, or an empty tally for a 2xx status.
        case respond(status: Int, retryAfter: String?)
        /// Handle the request normally (useful to put a delay on one normal answer).
        case handleNormally
        /// Close the connection as soon as the request starts arriving, without reading it: the
        /// client sees the connection reset and nothing is counted.
        case closeBeforeReading
        /// Handle and count the request normally, then close the connection instead of answering:
        /// the events are counted but the client never learns it.
        case dropResponseAfterCounting
        /// Answer a redirect (`301`, `302`, `303`, `307` or `308`) to `location` without counting
        /// anything: what a misconfigured edge or a hostile proxy does. A client must not follow it.
        case redirect(status: Int, location: String)
        /// Handle and count the request normally, and pad the answer's JSON body with trailing
        /// spaces to `bytes` bytes: an answer far larger than any tally, which a client must not
        /// buffer whole.
        case paddedAnswer(bytes: Int)
        /// Handle and count the request normally, and label the answer's plain JSON body
        /// `Content-Encoding: gzip`: a header that lies, which a client's HTTP library fails to
        /// decode. The status (202) still says the batch was taken.
        case mislabeledAnswerEncoding
    }

    /// What happens to the request.
    public var action: Action
    /// Real time waited before answering (on top of the configuration's added latency).
    public var delay: Duration
    /// Whether the answer waits, after `delay`, until ``LocalIngest/releaseHeldAnswers()``: a
    /// request in flight for exactly as long as the test needs, with no timing involved.
    public var isHeld: Bool

    /// Creates a scripted answer.
    /// - Parameters:
    ///   - action: What happens to the request.
    ///   - delay: Time waited before answering.
    ///   - isHeld: Whether the answer then waits for ``LocalIngest/releaseHeldAnswers()``.
    public init(_ action: Action, delay: Duration = .zero, isHeld: Bool = false) {
        self.action = action
        self.delay = delay
        self.isHeld = isHeld
    }

    /// Handles (and counts) the request normally, and holds the answer until
    /// ``LocalIngest/releaseHeldAnswers()``: the ingest has the events, the client has not heard.
    public static let heldUntilReleased = ScriptedAnswer(.handleNormally, isHeld: true)

    /// Answers `status`, with a `Retry-After` header when `retryAfter` is given.
    /// - Parameters:
    ///   - status: The HTTP status, for example 429 or 503.
    ///   - retryAfter: The header's value as sent: delay-seconds (`"120"`) or an HTTP-date.
    ///   - delay: Time waited before answering.
    /// - Returns: The scripted answer.
    public static func status(_ status: Int, retryAfter: String? = nil, delay: Duration = .zero) -> ScriptedAnswer {
        ScriptedAnswer(.respond(status: status, retryAfter: retryAfter), delay: delay)
    }

    /// Handles the request normally after `delay`.
    /// - Parameter delay: Time waited before answering.
    /// - Returns: The scripted answer.
    public static func normal(delay: Duration = .zero) -> ScriptedAnswer {
        ScriptedAnswer(.handleNormally, delay: delay)
    }

    /// Answers a redirect to `location`; see ``Action/redirect(status:location:)``.
    /// - Parameters:
    ///   - status: The redirect's status, 307 by default.
    ///   - location: The `Location` header's value.
    /// - Returns: The scripted answer.
    public static func redirect(_ status: Int = 307, to location: String) -> ScriptedAnswer {
        ScriptedAnswer(.redirect(status: status, location: location))
    }

    /// Handles the request normally and pads the answer to `bytes`; see ``Action/paddedAnswer(bytes:)``.
    /// - Parameter bytes: The body's size.
    /// - Returns: The scripted answer.
    public static func padded(to bytes: Int) -> ScriptedAnswer {
        ScriptedAnswer(.paddedAnswer(bytes: bytes))
    }

    /// Handles the request normally and labels its plain answer gzip; see ``Action/mislabeledAnswerEncoding``.
    public static let mislabeledAnswerEncoding = ScriptedAnswer(.mislabeledAnswerEncoding)

    /// Closes the connection before reading the request; see ``Action/closeBeforeReading``.
    public static let closeBeforeReading = ScriptedAnswer(.closeBeforeReading)

    /// Counts the request, then closes instead of answering; see ``Action/dropResponseAfterCounting``.
    public static let dropResponseAfterCounting = ScriptedAnswer(.dropResponseAfterCounting)
}
