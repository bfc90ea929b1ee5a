import SimpleDataLogs

/// What the delivery reports said during one `sdl send`, for the final message.
struct SendOutcome: Sendable {
    /// The last reason a try failed (a 503, a refused connection, a 401).
    var lastProblem: String?
    /// Why batches were set aside (400, 415): kept on disk, sent only after `sdl outbox requeue`.
    var setAside: [String] = []
    /// Why the ingest rejected events it otherwise accepted.
    var rejected: [String] = []

    /// Reads reports until the stream finishes (at the client's shutdown).
    static func collect(_ reports: DeliveryReports) async -> SendOutcome {
        var outcome = SendOutcome()
        for await report in reports {
            switch report {
            case .willRetry(_, let after, let reason):
                outcome.lastProblem = "\(reason); the SDK would try again in \(LogFormat.duration(after))"
            case .pausedForKey(let next):
                outcome.lastProblem = "the ingest refused the key (401); the SDK would ask again in \(next)"
            case .setAside(_, let events, let reason):
                outcome.setAside.append("\(events) events: \(reason)")
            case .delivered(_, _, let rejected):
                outcome.rejected += rejected.map(\.reason)
            case .dropped(_, let events, let reason):
                outcome.rejected.append("\(events) events dropped: \(reason)")
            case .split:
                break
            }
        }
        return outcome
    }
}
