import Foundation

/// Every decision of the uploader, as a value: when a wake-up starts a pass, which batches go
/// next, and what each answer means (tell the outbox, log once per episode, publish a report,
/// start a timer). One mutating function per input, each returning the actions to perform;
/// ``Uploader`` is the thin actor that performs them (outbox calls, the transport, the timer
/// task). Pure: the clock's instants and the random source come in from outside, so the rules are
/// tested synchronously (`UploaderStateMachineTests`).
///
/// States (DESIGN.md, "The uploader"):
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

    /// What the uploader does for the machine.
    enum Action: Sendable, Equatable {
        /// The outbox deletes the delivered batch (a 202; `rejected` of its events were refused).
        case markDelivered(UUID, rejected: Int)
        /// The outbox splits the batch in two (a 413); the result comes back in ``splitEnded(_:halves:)``.
        case split(UUID)
        /// The outbox drops a batch of one event the edge refused as too large.
        case dropTooLarge(UUID)
        /// The outbox sets the batch aside (a 400, or a 415 to a plain body).
        case setAside(UUID)
        case log(LogLevel, String)
        case publish(DeliveryReport)
        /// Replace the running timer (if any) with one that wakes the loop with this generation.
        case startTimer(after: Duration, generation: Int)

        /// Whether the action changes the outbox (it goes first: the words follow the effect).
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

    /// The outbox's sealed batches, oldest first, as its ``UploaderInput/queue(_:batchesFolder:)`` told them.
    private(set) var queue = BatchQueue()
    /// Batches the outbox is splitting (a 413): not sent again until its answer comes back
    /// (``splitEnded(_:halves:)``).
    private(set) var splitting: Set<UUID> = []
    private(set) var backoff = Backoff()
    /// How many failures the backoff has counted, ever (a 202 does not reset it). A request
    /// carries the value from when it left (``answered(_:attempt:batch:sentAt:sentInRound:now:elapsed:wallNow:)``):
    /// when it fails after another failure was counted, it was in flight during that failure, so
    /// it belongs to the same round and is not counted again (issue 23, item 9). Exact, with no
    /// clock involved: a manual clock that does not move cannot blur two rounds into one.
    private(set) var failureRound = 0
    private(set) var probe = KeyProbeSchedule<Instant>()
    /// Set while backing off: no pass but a flush starts before it.
    private(set) var resumeAt: Instant?
    /// Until when the ingest asked not to be called (`Retry-After`): no pass starts before it,
    /// flushes included. The edge said when; a flush that broke that would be the client the
    /// header exists to slow down (issue 23). A backoff the client drew itself still gives way
    /// to a flush.
    private(set) var retryAfterUntil: Instant?
    private(set) var timerGeneration = 0
    private var random: Random
    private var failureEpisodeLogged = false
    /// Retries of batches whose files could not be read (a local fault, not the edge's).
    private(set) var readBackoff = Backoff()
    /// Whether the current pass met a local fault.
    private var localFaultInPass = false
    private(set) var failuresByBatch: [UUID: Int] = [:]
    private(set) var demoted: Set<UUID> = []
    private var unreadableLogged = false
    private var rejectionLogged = false
    /// One line per client for a 202 whose body could not be read, and one for a 202 whose
    /// rejections outnumber its batch: both are the edge (or something posing as it) breaking
    /// the contract, which a line per batch would only repeat.
    private var unreadableAnswerLogged = false
    private var excessRejectionsLogged = false

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

    // MARK: Passes

    /// A pass begins; while a 401 pause holds, this pass is the key's probe, and says so at debug.
    mutating func beginPass() -> [Action] {
        localFaultInPass = false
        guard probe.isPaused else { return [] }
        return [.log(.debug, "Probing the key: the oldest batch goes again after \(probe.consecutiveUnauthorized) 401 answer(s).")]
    }

    /// The next round of a pass: batches not yet tried in it, oldest first with demoted ones
    /// after the others, at most ``maxConcurrentRequests``.
    ///
    /// Reads the queue only as far as the round needs (past the batches in flight, at its
    /// front): a round is asked for at every free place, and the queue may hold 100,000 batches.
    func nextRound(tried: Set<UUID>) -> [StoredBatch] {
        var round: [StoredBatch] = []
        for batch in queue where !tried.contains(batch.id) && !demoted.contains(batch.id) && !splitting.contains(batch.id) {
            round.append(batch)
            if round.count == maxConcurrentRequests { return round }
        }
        guard !demoted.isEmpty else { return round }
        for batch in queue where !tried.contains(batch.id) && demoted.contains(batch.id) && !splitting.contains(batch.id) {
            round.append(batch)
            if round.count == maxConcurrentRequests { break }
        }
        return round
    }

    /// A pass ended. Batches whose files could not be read stay queued: one warning per episode,
    /// and a timer with its own backoff (unless a backoff or probe timer runs), so a local fault
    /// neither blocks the batches behind it nor spins. A pass with no local fault ends the episode.
    mutating func passEnded(unreadable: [(batch: StoredBatch, error: FileSystemError)]) -> [Action] {
        guard let first = unreadable.first else {
            // One whose split the disk refused keeps its backoff growing, so a full disk is not
            // retried every second.
            if !localFaultInPass {
                if readBackoff.consecutiveFailures > 0 { readBackoff.recordSuccess() }
                unreadableLogged = false
            }
            return []
        }
        var actions: [Action] = []
        if !unreadableLogged {
            unreadableLogged = true
            actions.append(.log(.warning, "Could not read \(unreadable.count) batch file(s) to send (first: \(first.batch.fileName): \(first.error)); kept, and tried again later. The batches behind them are sent meanwhile."))
        }
        return actions + localRetry()
    }

    // MARK: Answers

    /// One batch's answer, through ``AnswerPolicy``.
    /// - Parameters:
    ///   - outcome: What the transport gave.
    ///   - attempt: What was sent (gzip, events, bytes).
    ///   - batch: The batch.
    ///   - sentAt: When the round's requests left (a 401 to a request sent before the last
    ///     counted one is not counted again).
    ///   - round: ``failureRound`` when the request left: a failure to a request that left
    ///     before the last counted failure is part of that failure's round.
    ///   - now: The clock's instant now.
    ///   - elapsed: From the request leaving to its outcome, for the debug line (the same span
    ///     the metric snapshots' round trip measures).
    ///   - wallNow: The wall clock now (for an HTTP-date `Retry-After`).
    ///
    /// Every answer gets one debug line (what was heard, and the round trip), placed after the
    /// outbox's action and before the others: the debug story of a batch is "sending", then
    /// "heard", then any decision; the warnings stay once per episode.
    mutating func answered(
        _ outcome: AnswerPolicy.Outcome, attempt: AnswerPolicy.Attempt, batch: StoredBatch,
        sentAt: Instant, sentInRound round: Int, now: Instant, elapsed: Duration, wallNow: Date
    ) -> Step {
        var step = decide(outcome, attempt: attempt, batch: batch, sentAt: sentAt, round: round, now: now, wallNow: wallNow)
        let heard = Action.log(.debug, Self.heardLine(outcome, batch: batch, roundTrip: elapsed))
        step.actions.insert(heard, at: step.actions.first?.isOutboxCall == true ? 1 : 0)
        return step
    }

    /// The decision for one answer (``answered(_:attempt:batch:sentAt:sentInRound:now:elapsed:wallNow:)`` adds the
    /// debug line of what was heard).
    private mutating func decide(
        _ outcome: AnswerPolicy.Outcome, attempt: AnswerPolicy.Attempt, batch: StoredBatch,
        sentAt: Instant, round: Int, now: Instant, wallNow: Date
    ) -> Step {
        let id = EventEncoder.lowercaseString(batch.id)
        switch AnswerPolicy.action(for: outcome, attempt: attempt, now: wallNow) {
        case .delete(let listed):
            forget(batch.id)
            // More rejections than events cannot be true: counted as the whole batch rejected
            // at most, never as a negative delivery (a 202 listing 4 for 2 events was reported
            // as "delivered −2").
            let rejected = Array(listed.prefix(batch.eventCount))
            var actions: [Action] = [.markDelivered(batch.id, rejected: rejected.count)]
            if listed.count > batch.eventCount, !excessRejectionsLogged {
                excessRejectionsLogged = true
                actions.append(.log(.warning, "The ingest's 202 for batch \(id) listed \(listed.count) rejections for \(batch.eventCount) events, which breaks the ingest API; counted \(batch.eventCount) rejected. Is the endpoint the ingest itself? Later such answers are counted, not logged."))
            }
            if case .answered(let response) = outcome, let problem = AnswerPolicy.unreadableBody(of: response), !unreadableAnswerLogged {
                unreadableAnswerLogged = true
                actions.append(.log(.warning, "The ingest accepted batch \(id) (202), but its answer could not be read (\(problem)); counted delivered, with any rejections unknown. Later such answers are counted, not logged."))
            }
            if backoff.consecutiveFailures > 0 || failureEpisodeLogged {
                actions.append(.log(.info, "The ingest answers again; delivered batch \(id) after \(backoff.consecutiveFailures) failed tries."))
            }
            if probe.isPaused {
                actions.append(.log(.info, "The ingest accepts the key again; uploads resumed after \(probe.consecutiveUnauthorized) 401 answer(s)."))
            }
            failureEpisodeLogged = false
            retryAfterUntil = nil
            backoff.recordSuccess()
            probe.recordAccepted()
            let reported = rejected.map { RejectedEvent(index: $0.index, eventID: $0.eventID, reason: $0.reason) }
            if let first = reported.first, !rejectionLogged {
                rejectionLogged = true
                actions.append(.log(.warning, "The ingest rejected \(reported.count) event(s) of batch \(id) (first: \(first.reason)); they are counted and never resent. Later rejections are counted, not logged."))
            }
            actions.append(.publish(.delivered(batchID: batch.id, delivered: batch.eventCount - reported.count, rejected: reported)))
            return Step(actions: actions, passGoesOn: true)

        case .pauseForKey:
            let decision = probe.recordUnauthorized(at: now, sentAt: sentAt)
            let wait = now.duration(to: decision.nextProbe)
            var actions: [Action] = []
            if decision.logsConfigurationError {
                actions.append(.log(.error, "401 from the ingest: the key is unknown or not live yet. Pausing uploads; next probe in \(Int(wait.components.seconds)) s, then every 10 minutes. Events stay on disk. Check the key in configure."))
            } else {
                actions.append(.log(.debug, "Still paused for the key; next probe in \(LogFormat.duration(wait))."))
            }
            actions.append(startTimer(after: wait))
            actions.append(.publish(.pausedForKey(nextProbeAfter: wait)))
            return Step(actions: actions, passGoesOn: false)

        case .split:
            splitting.insert(batch.id)
            return Step(actions: [.split(batch.id)], passGoesOn: true)

        case .dropTooLarge:
            forget(batch.id)
            return Step(actions: [
                .dropTooLarge(batch.id),
                .log(.warning, "The ingest refused a single event as too large (413); dropped it. Send fewer or shorter properties."),
                .publish(.dropped(batchID: batch.id, events: batch.eventCount, reason: "too large (413)")),
            ], passGoesOn: true)

        case .resendUncompressed:
            // The uploader resends a gzip body uncompressed itself; reaching here means the
            // uncompressed try also said 415.
            return Step(actions: [], passGoesOn: true)

        case .setAside(let reason):
            forget(batch.id)
            let text: String
            switch reason {
            case .malformedBody(let message): text = "400 \(message ?? "bad body")"
            case .unsupportedMediaType(let message): text = "415 \(message ?? "unsupported media type")"
            }
            return Step(actions: [
                .setAside(batch.id),
                .log(.warning, "The ingest refused batch \(id) (\(text)); set it aside on disk and moved on. `sdl outbox requeue` sends it again."),
                .publish(.setAside(batchID: batch.id, events: batch.eventCount, reason: text)),
            ], passGoesOn: true)

        case .backOff(let retryAfter):
            var actions: [Action] = []
            let failures = failuresByBatch[batch.id, default: 0] + 1
            failuresByBatch[batch.id] = failures
            if failures >= Self.demotionThreshold, demoted.insert(batch.id).inserted {
                actions.append(.log(.warning, "Batch \(id) failed \(failures) times in a row; the batches behind it are tried first from now on, and it keeps being retried after them."))
            }
            let reason = Self.failureReason(outcome)
            if !failureEpisodeLogged {
                failureEpisodeLogged = true
                actions.append(.log(.warning, "Could not deliver to the ingest (\(reason)); retrying with backoff. Events stay on disk."))
            }
            let delay: Duration
            if round < failureRound, let resumeAt {
                // In flight when the round's first failure was counted: the same outage, not a
                // new failure. Counting it too made one round of 4 refusals failures 5 to 8, and
                // its fresh random wait replaced the round's (minutes after a short outage).
                delay = sameRound(resumeAt: resumeAt, retryAfter: retryAfter, now: now, actions: &actions)
            } else {
                var drawn = backoff.recordFailure(retryAfter: retryAfter, using: &random)
                if backoffScale != 1 { drawn = drawn * backoffScale }
                failureRound += 1
                delay = drawn
                resumeAt = now.advanced(by: delay)
                if let retryAfter { holdForRetryAfter(retryAfter, now: now) }
                actions.append(startTimer(after: delay))
                let why = retryAfter.map { "the ingest's Retry-After of \(LogFormat.duration($0))" }
                    ?? "backoff after \(backoff.consecutiveFailures) failed tries in a row"
                actions.append(.log(.debug, "Next try in \(LogFormat.duration(delay)) (\(why))."))
            }
            actions.append(.publish(.willRetry(batchID: batch.id, after: delay, reason: reason)))
            return Step(actions: actions, passGoesOn: false)
        }
    }

    /// The outbox's answer to a ``Action/split(_:)``: the halves (which take the parent's place
    /// in the queue), or nil when the disk refused them (logged by the outbox). A refused split keeps the parent queued and retries later
    /// under the local-fault backoff; the batches behind it go on.
    mutating func splitEnded(_ batch: StoredBatch, halves: (StoredBatch, StoredBatch)?) -> [Action] {
        splitting.remove(batch.id)
        guard let (left, right) = halves else { return localRetry() }
        forget(batch.id)
        apply([.joined([left, right])])
        return [.publish(.split(batchID: batch.id, into: [left.id, right.id]))]
    }

    /// The outbox's answer to a split, by the parent's id (``UploaderInput/splitEnded(parent:halves:)``);
    /// nothing when the parent is no longer queued (evicted meanwhile).
    mutating func splitEnded(parent id: UUID, halves: [StoredBatch]?) -> [Action] {
        guard let parent = queue.batch(id) else {
            splitting.remove(id)
            if let halves { apply([.joined(halves)]) }
            return []
        }
        if let halves, halves.count == 2 { return splitEnded(parent, halves: (halves[0], halves[1])) }
        return splitEnded(parent, halves: nil)
    }

    // MARK: Helpers

    /// The debug line of one answer: the batch, what was heard, the round trip on the client's
    /// clock, and the batch's size.
    private static func heardLine(_ outcome: AnswerPolicy.Outcome, batch: StoredBatch, roundTrip: Duration) -> String {
        let heard: String
        switch outcome {
        case .answered(let response): heard = "HTTP \(response.status)"
        case .failed(let error): heard = "no answer (\(error.description))"
        }
        return "Batch \(EventEncoder.lowercaseString(batch.id)): \(heard) after \(LogFormat.duration(roundTrip)) (\(batch.eventCount) events)."
    }

    /// Why a try failed, for the log and the report. Only 202 means accepted: a 2xx from
    /// something else (a relay, a proxy, a wrong endpoint) is not taken as delivery.
    private static func failureReason(_ outcome: AnswerPolicy.Outcome) -> String {
        switch outcome {
        case .answered(let response) where (200..<300).contains(response.status):
            "HTTP \(response.status), not 202: is the endpoint the ingest itself?"
        case .answered(let response):
            "HTTP \(response.status)"
        case .failed(let error):
            error.description
        }
    }

    /// A failure in the round of one already counted: the round's wait stands, unless this
    /// answer's `Retry-After` asks for longer (the edge's word is obeyed, up to its 1-hour cap).
    /// - Returns: The wait from `now` until the next try.
    private mutating func sameRound(resumeAt: Instant, retryAfter: Duration?, now: Instant, actions: inout [Action]) -> Duration {
        if let retryAfter {
            let asked = holdForRetryAfter(retryAfter, now: now)
            if now.advanced(by: asked) > resumeAt {
                self.resumeAt = now.advanced(by: asked)
                actions.append(startTimer(after: asked))
                actions.append(.log(.debug, "Next try in \(LogFormat.duration(asked)) (the ingest's Retry-After of \(LogFormat.duration(retryAfter)), longer than the round's wait)."))
                return asked
            }
        }
        let remaining = max(.zero, now.duration(to: resumeAt))
        actions.append(.log(.debug, "Next try in \(LogFormat.duration(remaining)) (this request was in flight when the round's failure was counted; counted once)."))
        return remaining
    }

    /// Holds every pass, flushes included, for what the edge's `Retry-After` asked (capped at
    /// 1 hour, scaled like every wait); a later, longer one moves the hold.
    /// - Returns: The wait asked for.
    @discardableResult
    private mutating func holdForRetryAfter(_ retryAfter: Duration, now: Instant) -> Duration {
        var asked = min(max(retryAfter, .zero), Backoff.retryAfterCap)
        if backoffScale != 1 { asked = asked * backoffScale }
        let until = now.advanced(by: asked)
        if retryAfterUntil.map({ $0 < until }) ?? true { retryAfterUntil = until }
        return asked
    }

    /// A local fault (a file that cannot be read, halves the disk would not take) kept a batch
    /// back: a timer with its own backoff tries again, unless a backoff or probe timer runs.
    private mutating func localRetry() -> [Action] {
        localFaultInPass = true
        let delay = readBackoff.recordFailure(retryAfter: nil, using: &random)
        guard resumeAt == nil, !probe.isPaused else { return [] }
        return [
            startTimer(after: delay),
            .log(.debug, "Next try of the batches kept back by the disk in \(LogFormat.duration(delay)) (\(readBackoff.consecutiveFailures) local fault(s) in a row)."),
        ]
    }

    /// One timer at a time: a newer one makes the older one's firing stale.
    private mutating func startTimer(after delay: Duration) -> Action {
        timerGeneration += 1
        return .startTimer(after: delay, generation: timerGeneration)
    }

    /// A batch that left the queue (delivered, set aside, split, dropped, evicted) is out of the
    /// queue and has no failures to count.
    private mutating func forget(_ id: UUID) {
        queue.remove(id)
        splitting.remove(id)
        failuresByBatch[id] = nil
        demoted.remove(id)
    }
}
