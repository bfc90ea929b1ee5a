/// What wakes the uploader's loop. The loop is the only place that sends, so a batch is never
/// sent twice at once, and a flush simply waits its turn behind a send already in flight.
enum UploaderSignal: Sendable {
    /// The outbox's queue changed: the ``BatchFeed`` holds what joined and what left it.
    case batchesAvailable
    /// A backoff or key-probe timer ran out.
    case timerFired(generation: Int)
    /// `flush()`: try every queued batch once, ignoring a backoff (not a 401 pause), then pass
    /// the barrier. A last chance (`flushAndDisable`, whose opt-out deletes what is left) makes
    /// its one try during a 401 pause too, as a probe.
    case flush(Barrier, lastChance: Bool)
    /// `setOffline(false)`: seal the open batch and make a pass at once. What waited on disk goes
    /// now, as the switch's documentation says, not when the open batch's timer runs out.
    case online
}
