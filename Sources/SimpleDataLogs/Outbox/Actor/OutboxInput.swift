/// One message in the outbox's input (a ``HandOffQueue``), drained by its loop in order: the
/// one way anything reaches the journal thread without an awaited call.
///
/// Producers: the sessions stage (``chunk(_:)``), the sealer (``sealed(_:)``), the outbox's own
/// timers (``timer(_:generation:)``), the uploader (``delivery(_:)``).
/// Finished by the sessions stage when the intake shuts down (or by shutdown when a middleware
/// step holds the stages thread); the sealer's outcomes that arrive after that are drained by
/// `close()`.
enum OutboxInput: Sendable {
    /// Items from the sessions stage, in event order.
    case chunk([PipelineItem])
    /// What became of journals handed to the sealer, oldest first.
    case sealed([SealOutcome])
    /// One of the outbox's timers fired; `generation` tells a stale firing (the timer was
    /// replaced or cancelled since) from the current one (``MessageTimer/fired(_:)``).
    case timer(OutboxTimerKind, generation: Int)
    /// What the uploader did with batches it sent (delivered, split, set aside…), in the order
    /// it decided: one message per pass of its actions, never an awaited call per batch.
    case delivery([DeliveryOutcome])
}

extension OutboxInput {
    /// The sealer's outcomes this message carries, if it is ``sealed(_:)``.
    var sealOutcomes: [SealOutcome]? { if case .sealed(let outcomes) = self { outcomes } else { nil } }
    /// The uploader's outcomes this message carries, if it is ``delivery(_:)``.
    var deliveryOutcomes: [DeliveryOutcome]? { if case .delivery(let outcomes) = self { outcomes } else { nil } }
}

/// The outbox's one-shot timers, each a ``MessageTimer`` that posts ``OutboxInput/timer(_:generation:)``.
enum OutboxTimerKind: Sendable, Equatable {
    /// Seals a partial batch `SealPolicy.maxAge` after its first event.
    case seal
    /// Queues the set-aside batches again (`OutboxActor.setAsideRetryInterval`).
    case setAsideRetry
    /// Tries the storage folder again while the outbox runs without one (``StorageRetrySchedule``).
    case storageRetry
    /// Makes a completeness receipt, a period after the last one (`OutboxActor+Receipts.swift`).
    case receipt
}
