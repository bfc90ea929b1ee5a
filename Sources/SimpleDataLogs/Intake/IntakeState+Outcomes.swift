/// The values ``IntakeState``'s functions return (what the caller does outside the lock), and the
/// backlog's bounds they are judged by.
extension IntakeState {
    /// What ``accept(cost:waitsWhenFull:_:)`` decided, so the caller can log outside the lock.
    enum Acceptance: Equatable {
        case accepted
        case ignoredWhileDisabled
        /// Skipped because the backlog is full; `firstInEpisode` asks for the one log line, which
        /// names the limit that was reached.
        case skippedBacklog(firstInEpisode: Bool, limit: Backlog)
        /// The backlog is full, or the outbox has no room for what is in flight, and the caller
        /// asked to wait instead: nothing was counted yet.
        case full
        /// Accepted, but the intake log was full: the call waits in memory only, unprotected
        /// against a kill, the first of an episode (one log line).
        case acceptedUnlogged
        /// Accepted, and the oldest held event was dropped to make room before `configure`;
        /// `firstInEpisode` asks for the one log line.
        case acceptedDroppingOldest(firstInEpisode: Bool)
        /// The client is shut down: ignored and counted; `first` asks for the one log line.
        case ignoredAfterShutdown(first: Bool)
    }

    /// What ``enqueueActivity(_:at:)`` did.
    enum ActivityAcceptance: Equatable {
        case queued
        /// Folded into the `userInput` report just before it: only the latest input time counts.
        case coalesced
        /// Dropped: ``maxQueuedActivities`` are waiting; `firstInEpisode` asks for the one log line.
        case dropped(firstInEpisode: Bool)
    }

    /// The backlog's bounds: events accepted but not yet written, by count and by estimated bytes.
    struct Backlog: Sendable, Equatable {
        var events: Int
        var bytes: Int

        /// Whether an event of `cost` bytes fits next to `inFlight` events of `inFlightBytes`.
        /// An empty backlog always takes one event, so that no single event is refused forever.
        func hasRoom(inFlight: Int, inFlightBytes: Int, cost: Int) -> Bool {
            inFlight == 0 || (inFlight < events && inFlightBytes + cost <= bytes)
        }

        /// Whether the writer has caught up by half of both bounds: the end of a skipping episode.
        func isHalfEmpty(inFlight: Int, inFlightBytes: Int) -> Bool {
            inFlight <= events / 2 && inFlightBytes <= bytes / 2
        }
    }

    /// What an enqueued item needs from the caller.
    struct Enqueued {
        /// Wake the stage.
        var wakes: Bool
        /// Resume these callers waiting for room (the opt-out lets them go).
        var waiters: Waiters.Released
        /// The intake was shut down: the item was not queued, and the caller settles it (passes a
        /// barrier, releases a crash record).
        var refused: Bool
    }
}
