/// How many more events the outbox can take before its caps evict a batch on its way to the
/// ingest: what the waiting `track(_:waitingUpTo:)` waits for, besides the backlog (issue 23,
/// item 10). Pure; the outbox publishes one to the intake after every change, and the intake's
/// waiting callers go only while the events in flight fit in it.
///
/// Set-aside batches are left out on purpose: the caps drop them first, and an ingest that
/// refuses a batch must not make every waiting caller wait for it.
struct OutboxRoom: Sendable, Equatable {
    /// Events that fit before a cap evicts: the event cap's room, or the files cap's room in
    /// batches of the seal policy's size, whichever is less (never below zero).
    var events: Int
    /// Bytes that fit before the byte cap evicts, compared with the backlog's estimate of each
    /// event's size (``Event/memoryCost``, generous for an event's own fields; properties merged
    /// later are not in it, so this bound is an estimate).
    var bytes: Int

    /// The room left by what is stored.
    /// - Parameters:
    ///   - caps: The outbox's caps.
    ///   - stored: The open journal, the journals being sealed and the sealed batches (not the
    ///     set-aside ones).
    ///   - batchEvents: Events per sealed batch (``SealPolicy/maxEvents``).
    init(caps: OutboxCaps, stored: OutboxCaps.Usage, batchEvents: Int) {
        // One file is kept for the batch the next events open.
        let freeFiles = caps.maxFiles - stored.files - 1
        let byFiles = freeFiles > 0 ? freeFiles.multipliedReportingOverflow(by: max(1, batchEvents)) : (partialValue: 0, overflow: false)
        events = max(0, min(caps.maxEvents - stored.events, byFiles.overflow ? Int.max : byFiles.partialValue))
        bytes = max(0, caps.maxBytes - stored.bytes)
    }

    /// A room with these numbers, for tests.
    init(events: Int, bytes: Int) {
        self.events = events
        self.bytes = bytes
    }

    /// Whether one more event of `cost` fits next to `inFlight` events of `inFlightBytes` that
    /// are on their way to the outbox.
    func fits(inFlight: Int, inFlightBytes: Int, cost: Int) -> Bool {
        inFlight < events && inFlightBytes + cost <= bytes
    }
}
