import Foundation

/// Everything that reaches the uploader, on its one input queue (a ``HandOffQueue``: elements
/// under a lock plus one pending wake-up, unbounded). The uploader takes every waiting element
/// at once per wake-up, and again before each batch it starts, without suspending.
///
/// Producers: the outbox (``queue(_:batchesFolder:)`` at the end of each of its operations,
/// ``splitEnded(parent:halves:)``), the uploader's own timer, `flush()`, `setOffline(false)`.
/// Finished by shutdown; the flushes still waiting then are let go.
enum UploaderInput: Sendable {
    /// The outbox's queue of sealed batches changed, in this order. Never a change the uploader
    /// caused itself (a delivery, a set-aside, a drop): it already knows those (no echo).
    /// `batchesFolder` is where the joined batches' files are (nil: memory only).
    case queue([BatchQueueChange], batchesFolder: String?)
    /// The outbox's answer to a ``DeliveryOutcome/split(_:)``: the halves that took the parent's
    /// place, or nil when the disk refused them (the parent stays queued, tried again later).
    case splitEnded(parent: UUID, halves: [StoredBatch]?)
    /// A backoff or key-probe timer ran out.
    case timerFired(generation: Int)
    /// `flush()`: try every queued batch once, ignoring a backoff (not a 401 pause), then pass
    /// the barrier. A last chance (`flushAndDisable`, whose opt-out deletes what is left) makes
    /// its one try during a 401 pause too, as a probe.
    case flush(Barrier, lastChance: Bool)
    /// `setOffline(false)`: seal the open batch and make a pass at once. What waited on disk goes
    /// now, as the switch's documentation says, not when the open batch's timer runs out.
    case online
    /// `rotateIngestKey(to:)`, once the outbox has recorded its area as the new key's: every
    /// request from now on carries this key, a 401 pause ends at once, and a pass starts. Applied
    /// as soon as it is taken, during a pass too, so the pass's next request has the new key.
    case keyRotated(String)
}

/// One change to the outbox's queue of sealed batches, as the uploader learns it.
enum BatchQueueChange: Sendable, Equatable {
    /// Sealed, recovered, split or queued again.
    case joined([StoredBatch])
    /// Evicted by the caps, deleted by the opt-out, vanished: gone without the uploader's doing.
    case left([UUID])
}

/// What the uploader did with a batch, for the outbox to carry out on disk and in its counters.
/// Posted as ``OutboxInput/delivery(_:)`` messages in the outbox's one input, handled by its loop
/// as it handles the sealer's outcomes (and taken out of it at each `flush()`); never awaited.
enum DeliveryOutcome: Sendable, Equatable {
    /// A 202: delete the file; `rejected` of its events were refused by the ingest.
    case delivered(UUID, rejected: Int)
    /// A 413 on several events: split it in two (the answer comes back as
    /// ``UploaderInput/splitEnded(parent:halves:)``).
    case split(UUID)
    /// A 413 on a single event: drop it, counted.
    case tooLarge(UUID)
    /// A 400, or a 415 to a plain body: move it to `set-aside/`.
    case setAside(UUID)
    /// Its file was not there when the uploader read it: the outbox checks and counts it lost.
    case vanished(UUID)
    /// A report about the outcomes before it in the same message, published by the outbox once
    /// it has applied them: whoever hears a report finds the counters already showing it.
    case announce(DeliveryReport)
}
