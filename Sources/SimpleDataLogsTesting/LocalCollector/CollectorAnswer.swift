/// An answer ``LocalCollector`` gives instead of its normal 200, for testing how a client takes a
/// collector's failures and partial successes (``LocalCollector/script(_:)``).
public struct CollectorAnswer: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The `Retry-After` header, if any.
    public var retryAfter: String?
    /// For a 200: the `partialSuccess.rejectedLogRecords` to report (`nil`: a full success).
    /// The export's records are counted as received less this many.
    public var rejectedLogRecords: Int?
    /// The `errorMessage` of a partial success, or the `message` of an error's `Status` body.
    public var message: String

    /// A failure: the status with a `google.rpc.Status` JSON body (`{"code":…,"message":…}`), as
    /// a collector answers a 4xx or 5xx; nothing is counted.
    /// - Parameters:
    ///   - status: The HTTP status, for example 400, 429 or 503.
    ///   - retryAfter: The `Retry-After` value, if any (`"120"`, or an HTTP-date).
    ///   - message: The `Status` message.
    /// - Returns: The answer.
    public static func status(_ status: Int, retryAfter: String? = nil, message: String = "scripted failure") -> CollectorAnswer {
        CollectorAnswer(status: status, retryAfter: retryAfter, rejectedLogRecords: nil, message: message)
    }

    /// A 200 with `partialSuccess`: `rejected` of the export's log records refused.
    /// - Parameters:
    ///   - rejected: `rejectedLogRecords`.
    ///   - message: `errorMessage`.
    /// - Returns: The answer.
    public static func partialSuccess(rejected: Int, message: String = "scripted rejection") -> CollectorAnswer {
        CollectorAnswer(status: 200, retryAfter: nil, rejectedLogRecords: rejected, message: message)
    }
}
