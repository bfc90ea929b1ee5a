/// How long to wait after a failed try: full jitter, honouring `Retry-After` (INGEST-API.md,
/// "What the client does with each answer", last row).
///
/// After the n-th failure in a row the wait is uniformly random in
/// `[0, min(5 min, 1 s × 2^(n−1))]`; with `Retry-After`, the larger of that and `Retry-After`,
/// which is first capped at 1 hour. A 202 resets n. Full jitter spreads a fleet of clients that
/// failed together, so the edge does not see them all return at once.
///
/// A pure value: the randomness comes in as a generator (seed one in tests), the time is
/// returned as a `Duration` for the uploader to sleep on its injected clock.
///
/// Count only answers that ``AnswerPolicy`` maps to ``AnswerPolicy/Action/backOff(retryAfter:)``:
/// the other answers are not the edge being unavailable.
struct Backoff: Sendable, Equatable {
    /// The ceiling after the first failure.
    static let base: Duration = .seconds(1)
    /// The ceiling never exceeds this.
    static let maximum: Duration = .seconds(300)
    /// `Retry-After` is obeyed up to this; a larger value is read as this.
    static let retryAfterCap: Duration = .seconds(3_600)

    /// Failures in a row since the last 202 (n).
    private(set) var consecutiveFailures = 0

    /// Creates the rule with no failure yet.
    init() {}

    /// Records a 202: the next failure starts again from the 1-second ceiling.
    mutating func recordSuccess() {
        consecutiveFailures = 0
    }

    /// Records a failure and draws the wait before the next try.
    /// - Parameters:
    ///   - retryAfter: The answer's `Retry-After`, already parsed (see ``RetryAfter``), if any.
    ///   - generator: The source of randomness.
    /// - Returns: How long to wait.
    mutating func recordFailure(retryAfter: Duration?, using generator: inout some RandomNumberGenerator) -> Duration {
        consecutiveFailures += 1
        return Self.delay(afterFailures: consecutiveFailures, retryAfter: retryAfter, unitRandom: Double.random(in: 0...1, using: &generator))
    }

    /// The ceiling of the random wait after the n-th failure in a row: `min(5 min, 1 s × 2^(n−1))`.
    /// - Parameter failures: n, at least 1 (0 or less reads as 1).
    /// - Returns: The ceiling.
    static func ceiling(afterFailures failures: Int) -> Duration {
        // 2^9 s already passes 300 s; clamping the exponent keeps the shift from overflowing.
        let exponent = min(max(failures, 1) - 1, 9)
        return min(maximum, base * (1 << exponent))
    }

    /// The wait for a given draw, with no state: the formula itself.
    /// - Parameters:
    ///   - failures: n, the failures in a row including this one.
    ///   - retryAfter: The parsed `Retry-After`, if any.
    ///   - unitRandom: A uniform draw from [0, 1]; values outside are clamped.
    /// - Returns: `max(ceiling × draw, min(retryAfter, 1 h))`.
    static func delay(afterFailures failures: Int, retryAfter: Duration?, unitRandom: Double) -> Duration {
        let fraction = unitRandom.isFinite ? min(max(unitRandom, 0), 1) : 0
        let jittered = ceiling(afterFailures: failures) * fraction
        guard let retryAfter else { return jittered }
        return max(jittered, min(max(retryAfter, .zero), retryAfterCap))
    }
}
