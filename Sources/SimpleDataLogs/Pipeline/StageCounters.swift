/// The counters kept by the stages after the intake (the intake keeps its own, under its lock,
/// so `track()` takes one lock, not two), and what the uploader learns of its requests' answers.
final class StageCounters: Sendable {
    /// The counters and the answers under one lock, so a snapshot never pairs a delivery with
    /// the round trip of another request.
    private struct Values: Sendable {
        var counters = DeliveryCounters()
        var answers = RequestAnswers()
        /// Batch files that held something else than their batch when the uploader read them.
        var mismatchedReads = 0
    }

    private let values = Locked(Values())

    /// Applies a change to the counters.
    func update(_ change: (inout DeliveryCounters) -> Void) {
        values.withLock { change(&$0.counters) }
    }

    /// Records that the ingest answered a request (any status) after `roundTrip` on the
    /// client's clock. Called by the uploader, once per answer, never per event.
    func recordAnswer(roundTrip: Duration) {
        values.withLock { values in
            values.answers.count += 1
            values.answers.lastRoundTrip = roundTrip
        }
    }

    /// Counts a batch file the uploader read that did not hold its batch (``BatchReader``).
    func recordMismatchedRead() {
        values.withLock { $0.mismatchedReads += 1 }
    }

    /// Batch files read that did not hold their batch, so far (never sent under their id).
    var mismatchedReads: Int { values.withLock { $0.mismatchedReads } }

    /// The stages' part of the counters.
    var snapshot: DeliveryCounters { values.withLock { $0.counters } }

    /// The stages' part of the counters and the answers so far, read together.
    var snapshotWithAnswers: (counters: DeliveryCounters, answers: RequestAnswers) {
        values.withLock { ($0.counters, $0.answers) }
    }
}

/// What the uploader has heard from the ingest: how many requests it answered, and how long the
/// latest answer took.
struct RequestAnswers: Sendable, Hashable {
    /// Requests the ingest answered, whatever the status; a request that got no answer (a
    /// refused connection, a timeout) is not counted.
    var count = 0
    /// The round trip of the most recent answer, on the client's clock.
    var lastRoundTrip: Duration?
}
