import Foundation

/// Every decision of the uploader, as a value: when a wake-up starts a pass, which batches go
/// next, and what each answer means (tell the outbox, log once per episode, publish a report,
/// start a timer), and the pass itself (``Pass``: the window of requests in flight, what was
/// tried, what to read ahead, what was kept back). One mutating function per input, each
/// returning the actions to perform; ``Uploader`` is the thin actor that performs them (reads,
/// the transport, outcome messages to the outbox, the timer task). Pure: the clock's instants and
/// the random source come in from outside, so the rules are tested synchronously
/// (`UploaderStateMachineTests`, `UploaderPassTests`).
///
/// States (``State``; DESIGN.md, "The uploader"):
/// ```
/// idle ──batches──▶ sending ──202──▶ sending (next batch) ──queue empty──▶ idle
///                      │ 5xx/429/timeout/offline ──▶ backingOff(until) ──timer/flush──▶ sending
///                      │ 401 ──▶ pausedForKey(probe at +1 min, then +10 min) ──timer──▶ sending (probe)
///                      │ 400 / 415 plain ──▶ set aside, next batch
///                      │ 413 ──▶ split (or drop a single event), next batch
/// ```
/// "Backing off" is ``resumeAt`` set; "paused for the key" is the ``KeyProbeSchedule`` paused.
/// Both can hold at once (a 401 during a backoff): a pass needs both to allow it.
struct UploaderStateMachine<Instant: InstantProtocol, Random: RandomNumberGenerator & Sendable>: Sendable
where Instant.Duration == Duration {
    /// What wakes the uploader.
    enum Wake: Sendable, Equatable {
        /// The outbox sealed (or recovered) batches.
        case batchesAvailable
        /// A timer ran out; stale when a newer timer replaced it.
        case timerFired(generation: Int)
        /// `flush()`: a pass that ignores a backoff; a last chance ignores a 401 pause too.
        case flush(lastChance: Bool)
    }

    /// What the uploader does for the machine. The first four go to the outbox as
    /// ``DeliveryOutcome`` messages, never awaited.
    enum Action: Sendable, Equatable {
        /// The outbox deletes the delivered batch (a 202; `rejected` of its events were refused).
        case markDelivered(UUID, rejected: Int)
        /// The outbox splits the batch in two (a 413); its answer comes back on the uploader's
        /// input, to ``splitEnded(parent:halves:)``.
        case split(UUID)
        /// The outbox drops a batch of one event the edge refused as too large.
        case dropTooLarge(UUID)
        /// The outbox sets the batch aside (a 400, or a 415 to a plain body).
        case setAside(UUID)
        case log(LogLevel, String)
        case publish(DeliveryReport)
        /// Replace the running timer (if any) with one that wakes the loop with this generation.
        case startTimer(after: Duration, generation: Int)

        /// Whether the action is an outcome for the outbox (it goes first among the actions).
        var isOutboxCall: Bool {
            switch self {
            case .markDelivered, .split, .dropTooLarge, .setAside: true
            case .log, .publish, .startTimer: false
            }
        }
    }

    /// The actions for one answer, and whether the pass may go on to further batches.
    struct Step: Sendable, Equatable {
        var actions: [Action]
        var passGoesOn: Bool
    }

    /// Failed tries in a row after which a batch is tried after the others, so one batch the edge
    /// always fails (a body that trips it) cannot hold back every batch behind it.
    static var demotionThreshold: Int { 3 }

    let maxConcurrentRequests: Int
    /// Multiplies every backoff delay; 1 in production, smaller in `sdl demo`.
    let backoffScale: Double

    // The fields are internal so that the machine's own files (`UploaderStateMachine+*.swift`)
    // can write them; nothing else does.

    /// The outbox's sealed batches, oldest first, as its ``UploaderInput/queue(_:batchesFolder:)`` told them.
    var queue = BatchQueue()
    /// The pass under way (``State/sending(_:)``); nil between passes.
    var pass: Pass?
    /// Batches the outbox is splitting (a 413): not sent again until its answer comes back
    /// (``splitEnded(_:halves:)``).
    var splitting: Set<UUID> = []
    var backoff = Backoff()
    /// How many failures the backoff has counted, ever (a 202 does not reset it). A request
    /// carries the value from when it left (``answered(_:attempt:batch:sentAt:sentInRound:now:elapsed:wallNow:)``):
    /// when it fails after another failure was counted, it was in flight during that failure, so
    /// it belongs to the same round and is not counted again (issue 23, item 9). Exact, with no
    /// clock involved: a manual clock that does not move cannot blur two rounds into one.
    var failureRound = 0
    var probe = KeyProbeSchedule<Instant>()
    /// How many times the key was rotated (``keyRotated()``). A request carries it from when it
    /// left: a 401 to an older generation was to the key the app retired, not to this one.
    var keyGeneration = 0
    /// Set while backing off: no pass but a flush starts before it.
    var resumeAt: Instant?
    /// Until when the ingest asked not to be called (`Retry-After`): no pass starts before it,
    /// flushes included. The edge said when; a flush that broke that would be the client the
    /// header exists to slow down (issue 23). A backoff the client drew itself still gives way
    /// to a flush.
    var retryAfterUntil: Instant?
    var timerGeneration = 0
    var random: Random
    var failureEpisodeLogged = false
    /// Retries of batches whose files could not be read (a local fault, not the edge's).
    var readBackoff = Backoff()
    /// Whether the current pass met a local fault.
    var localFaultInPass = false
    var failuresByBatch: [UUID: Int] = [:]
    var demoted: Set<UUID> = []
    var unreadableLogged = false
    var rejectionLogged = false
    /// One line per client for a 202 whose body could not be read, and one for a 202 whose
    /// rejections outnumber its batch: both are the edge (or something posing as it) breaking
    /// the contract, which a line per batch would only repeat.
    var unreadableAnswerLogged = false
    var excessRejectionsLogged = false

    init(maxConcurrentRequests: Int, backoffScale: Double, random: Random) {
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
        self.backoffScale = backoffScale
        self.random = random
    }

    // MARK: Passes

    /// Whether a wake-up starts a pass now. A stale timer does not; a backoff holds every pass
    /// but a flush; a `Retry-After` holds every pass, flushes too, until the time it gave; a 401
    /// pause holds every pass but a last-chance flush until the probe is due.
    mutating func startsPass(after wake: Wake, at now: Instant) -> Bool {
        var ignoresBackoff = false
        var ignoresPause = false
        switch wake {
        case .batchesAvailable:
            break
        case .timerFired(let generation):
            guard generation == timerGeneration else { return false }
            resumeAt = nil
        case .flush(let lastChance):
            ignoresBackoff = true
            ignoresPause = lastChance
        }
        if probe.isPaused && !probe.maySend(at: now) && !ignoresPause { return false }
        if let retryAfterUntil, now < retryAfterUntil { return false }
        if !ignoresBackoff, let resumeAt, now < resumeAt { return false }
        return true
    }

    // MARK: The queue

    /// Applies what the outbox posted: batches that joined its queue go where their age puts
    /// them (a batch already known is not added twice); batches that left it are forgotten, with
    /// their failures.
    mutating func apply(_ changes: [BatchQueueChange]) {
        for change in changes {
            switch change {
            case .joined(let batches):
                for batch in batches where !queue.contains(id: batch.id) { queue.insert(batch) }
            case .left(let ids):
                for id in ids { forget(id) }
            }
        }
    }

    /// A batch the outbox no longer has (its file vanished, or it left before the feed said so).
    mutating func batchGone(_ id: UUID) {
        forget(id)
    }
}
