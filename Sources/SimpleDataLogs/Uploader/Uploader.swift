import Foundation

/// Delivers sealed batches, oldest first, exactly as INGEST-API.md says, and applies the answer
/// table through ``AnswerPolicy``, ``Backoff`` and ``KeyProbeSchedule``.
///
/// One loop (`run`) does all the sending, driven by ``UploaderSignal``s: the outbox says batches
/// are ready, a timer runs out, or `flush()` asks for a pass. Generic over the clock so that its
/// deadlines and probe times are the clock's own instants; tests pass `ManualClock`.
///
/// State machine (DESIGN.md, "The uploader"):
/// ```
/// idle ──batches──▶ sending ──202──▶ sending (next batch) ──queue empty──▶ idle
///                      │ 5xx/429/timeout/offline ──▶ backingOff(until) ──timer/flush──▶ sending
///                      │ 401 ──▶ pausedForKey(probe at +1 min, then +10 min) ──timer──▶ sending (probe)
///                      │ 400 / 415 plain ──▶ set aside, next batch
///                      │ 413 ──▶ split (or drop a single event), next batch
/// ```
actor Uploader<C: Clock> where C.Duration == Duration {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let clock: C
    private let wallClock: any WallClock
    private let journal: JournalActor
    private let settings: UploaderSettings
    private let logger: SDKLogger
    private let reports: DeliveryReportHub
    private let intake: Intake
    private let signals: AsyncStream<UploaderSignal>.Continuation

    private var backoff = Backoff()
    private var probe = KeyProbeSchedule<C.Instant>()
    private var resumeAt: C.Instant?
    private var timer: Task<Void, Never>?
    private var timerGeneration = 0
    private var random = SystemRandomNumberGenerator()
    private var failureEpisodeLogged = false
    /// Retries of batches whose files could not be read (a local fault, not the edge's).
    private var readBackoff = Backoff()
    /// Whether the current pass met a local fault (for ``retryLater(_:)``).
    private var localFaultInPass = false
    /// Failed tries in a row of each batch, and the batches that failed ``demotionThreshold``
    /// times: those are tried after the others, so one batch the edge always fails (a body that
    /// trips it) cannot hold back every batch behind it.
    private var failuresByBatch: [UUID: Int] = [:]
    private var demoted: Set<UUID> = []
    static var demotionThreshold: Int { 3 }
    private var unreadableLogged = false
    private var rejectionLogged = false

    init(
        clock: C, wallClock: any WallClock, journal: JournalActor, settings: UploaderSettings, logger: SDKLogger,
        reports: DeliveryReportHub, intake: Intake, signals: AsyncStream<UploaderSignal>.Continuation, executor: ThreadExecutor
    ) {
        self.clock = clock
        self.wallClock = wallClock
        self.journal = journal
        self.settings = settings
        self.logger = logger
        self.reports = reports
        self.intake = intake
        self.signals = signals
        self.executor = executor
    }

    /// Handles signals until the stream finishes.
    func run(_ input: AsyncStream<UploaderSignal>) async {
        for await signal in input {
            switch signal {
            case .batchesAvailable:
                await sendPass(isFlush: false)
            case .timerFired(let generation):
                guard generation == timerGeneration else { continue }
                resumeAt = nil
                await sendPass(isFlush: false)
            case .flush(let barrier, let lastChance):
                await sendPass(isFlush: true, ignoresPause: lastChance)
                barrier.pass()
            }
        }
        timer?.cancel()
    }

    /// Sends queued batches, oldest first, up to `maxConcurrentRequests` at once. A flush tries
    /// each queued batch once and ignores a backoff; a normal pass goes on until the queue is
    /// empty or an answer says to wait.
    private func sendPass(isFlush: Bool, ignoresPause: Bool = false) async {
        guard settings.builder != nil, intake.isEnabled else { return }
        let now = clock.now
        if probe.isPaused && !probe.maySend(at: now) && !ignoresPause { return }
        if !isFlush, let resumeAt, now < resumeAt { return }
        if !failuresByBatch.isEmpty {
            // Batches that left the queue some other way (the caps, the opt-out) are forgotten.
            let queuedIDs = Set(await journal.sealedBatches.map(\.id))
            failuresByBatch = failuresByBatch.filter { queuedIDs.contains($0.key) }
            demoted.formIntersection(queuedIDs)
        }
        var tried: Set<UUID> = []
        var unreadable: [(StoredBatch, FileSystemError)] = []
        localFaultInPass = false
        while !Task.isCancelled {
            // Arrays, not lazy views: a view would be filtered again after `tried` changes.
            let queued = await journal.sealedBatches.filter { !tried.contains($0.id) }
            let next = Array((queued.filter { !demoted.contains($0.id) } + queued.filter { demoted.contains($0.id) }).prefix(settings.maxConcurrentRequests))
            guard !next.isEmpty, intake.isEnabled else { break }
            // Every batch taken counts as tried, sent or not: one that cannot be loaded must not
            // be taken again in this pass (it was, and the pass spun a core forever).
            for batch in next { tried.insert(batch.id) }
            var keepGoing = true
            let (outcomes, failedReads) = await send(next)
            unreadable += failedReads
            for (batch, outcome) in outcomes {
                if !(await apply(outcome, to: batch)) { keepGoing = false }
            }
            if !keepGoing { break }
        }
        retryLater(unreadable)
    }

    /// Batches whose files could not be read stay queued; one warning per episode, and a timer
    /// (unless another already runs) tries again with its own backoff, so a local fault neither
    /// blocks the batches behind it nor spins.
    private func retryLater(_ unreadable: [(StoredBatch, FileSystemError)]) {
        guard let (batch, error) = unreadable.first else {
            // A pass with no local fault at all ends the episode; one whose split the disk
            // refused keeps its backoff growing, so a full disk is not retried every second.
            if !localFaultInPass {
                if readBackoff.consecutiveFailures > 0 { readBackoff.recordSuccess() }
                unreadableLogged = false
            }
            return
        }
        if !unreadableLogged {
            unreadableLogged = true
            logger.warning("Could not read \(unreadable.count) batch file(s) to send (first: \(batch.fileName): \(error)); kept, and tried again later. The batches behind them are sent meanwhile.")
        }
        scheduleLocalRetry()
    }

    /// A local fault (a file that cannot be read, halves the disk would not take) kept a batch
    /// back: a timer with its own backoff tries again, unless a backoff or probe timer runs.
    private func scheduleLocalRetry() {
        localFaultInPass = true
        let delay = readBackoff.recordFailure(retryAfter: nil, using: &random)
        if resumeAt == nil, !probe.isPaused { scheduleTimer(after: delay) }
    }

    /// One try of each batch, concurrently, each under the uploader's own deadline; and the
    /// batches whose files could not be read.
    private func send(_ batches: [StoredBatch]) async -> (sent: [(StoredBatch, Attempted)], unreadable: [(StoredBatch, FileSystemError)]) {
        var loaded: [(StoredBatch, SealedBatch)] = []
        var unreadable: [(StoredBatch, FileSystemError)] = []
        for batch in batches {
            switch await journal.load(batch.id) {
            case .loaded(let sealed): loaded.append((batch, sealed))
            case .gone: continue
            case .unreadable(let error): unreadable.append((batch, error))
            }
        }
        guard let builder = settings.builder else { return ([], unreadable) }
        let settings = settings
        let clock = clock
        let sentAt = wallClock.nowMilliseconds
        let sentInstant = clock.now
        return await withTaskGroup(of: (Int, Attempted).self) { group in
            for (index, (_, sealed)) in loaded.enumerated() {
                group.addTask {
                    var gzip = settings.compresses
                    while true {
                        let request = builder.request(batchID: sealed.id, payloads: sealed.payloads, sentAt: sentAt, gzip: gzip, timeout: settings.requestTimeout)
                        let outcome = await Self.sendWithDeadline(request, transport: settings.transport, clock: clock, timeout: settings.requestTimeout)
                        let attempt = AnswerPolicy.Attempt(wasGzipped: request.isGzipped, eventCount: sealed.payloads.count, bodyBytes: sealed.bodyBytes)
                        // 415 to a gzip body: the same batch once more, uncompressed.
                        if case .answered(let response) = outcome, response.status == 415, attempt.wasGzipped, gzip {
                            gzip = false
                            continue
                        }
                        return (index, Attempted(outcome: outcome, attempt: attempt, sentAt: sentInstant))
                    }
                }
            }
            var results: [(StoredBatch, Attempted)] = []
            for await (index, attempted) in group { results.append((loaded[index].0, attempted)) }
            return (results.sorted { StoredBatch.isOlder($0.0, $1.0) }, unreadable)
        }
    }

    struct Attempted: Sendable {
        var outcome: AnswerPolicy.Outcome
        var attempt: AnswerPolicy.Attempt
        /// When the round's requests left, on the client's clock.
        var sentAt: C.Instant
    }

    /// Sends one request, giving up when the uploader's deadline passes on the injected clock;
    /// the transport's own timeout is only a backstop.
    private static func sendWithDeadline(_ request: UploadRequest, transport: any Transport, clock: C, timeout: Duration) async -> AnswerPolicy.Outcome {
        await withTaskGroup(of: AnswerPolicy.Outcome?.self) { group in
            group.addTask {
                do { return .answered(try await transport.send(request)) } catch { return .failed(TransportError(classifying: error)) }
            }
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch { return nil }
                return .failed(TransportError(.timedOut, message: "no answer within \(timeout)"))
            }
            var first: AnswerPolicy.Outcome = .failed(TransportError(.cancelled, message: "the upload was cancelled"))
            for await result in group {
                guard let result else { continue }
                first = result
                break
            }
            group.cancelAll()
            return first
        }
    }

    /// Applies the answer table to one batch. Returns whether the pass may go on.
    private func apply(_ attempted: Attempted, to batch: StoredBatch) async -> Bool {
        let action = AnswerPolicy.action(for: attempted.outcome, attempt: attempted.attempt, now: wallClock.now())
        switch action {
        case .delete(let rejected):
            forgetFailures(of: batch.id)
            await journal.markDelivered(batch.id, rejected: rejected.count)
            if backoff.consecutiveFailures > 0 || failureEpisodeLogged {
                logger.info("The ingest answers again; delivered batch \(EventEncoder.lowercaseString(batch.id)) after \(backoff.consecutiveFailures) failed tries.")
            }
            failureEpisodeLogged = false
            backoff.recordSuccess()
            probe.recordAccepted()
            let reported = rejected.map { RejectedEvent(index: $0.index, eventID: $0.eventID, reason: $0.reason) }
            if let first = reported.first, !rejectionLogged {
                rejectionLogged = true
                logger.warning("The ingest rejected \(reported.count) event(s) of batch \(EventEncoder.lowercaseString(batch.id)) (first: \(first.reason)); they are counted and never resent. Later rejections are counted, not logged.")
            }
            reports.publish(.delivered(batchID: batch.id, delivered: batch.eventCount - reported.count, rejected: reported))
            return true
        case .pauseForKey:
            let decision = probe.recordUnauthorized(at: clock.now, sentAt: attempted.sentAt)
            let wait = clock.now.duration(to: decision.nextProbe)
            if decision.logsConfigurationError {
                logger.error("401 from the ingest: the key is unknown or not live yet. Pausing uploads; next probe in \(Int(wait.components.seconds)) s, then every 10 minutes. Events stay on disk. Check the key in configure.")
            }
            scheduleTimer(after: wait)
            reports.publish(.pausedForKey(nextProbeAfter: wait))
            return false
        case .split:
            if let (left, right) = await journal.split(batch.id) {
                forgetFailures(of: batch.id)
                reports.publish(.split(batchID: batch.id, into: [left.id, right.id]))
            } else {
                // The disk refused the halves (logged by the outbox): the parent stays, and a
                // timer tries again later; the batches behind it go on.
                scheduleLocalRetry()
            }
            return true
        case .dropTooLarge:
            forgetFailures(of: batch.id)
            await journal.dropTooLarge(batch.id)
            logger.warning("The ingest refused a single event as too large (413); dropped it. Send fewer or shorter properties.")
            reports.publish(.dropped(batchID: batch.id, events: batch.eventCount, reason: "too large (413)"))
            return true
        case .resendUncompressed:
            // Handled inside `send`; reaching here means the uncompressed try also said 415.
            return true
        case .setAside(let reason):
            forgetFailures(of: batch.id)
            await journal.setAside(batch.id)
            let text: String
            switch reason {
            case .malformedBody(let message): text = "400 \(message ?? "bad body")"
            case .unsupportedMediaType(let message): text = "415 \(message ?? "unsupported media type")"
            }
            logger.warning("The ingest refused batch \(EventEncoder.lowercaseString(batch.id)) (\(text)); set it aside on disk and moved on. `sdl outbox requeue` sends it again.")
            reports.publish(.setAside(batchID: batch.id, events: batch.eventCount, reason: text))
            return true
        case .backOff(let retryAfter):
            let failures = failuresByBatch[batch.id, default: 0] + 1
            failuresByBatch[batch.id] = failures
            if failures >= Self.demotionThreshold, demoted.insert(batch.id).inserted {
                logger.warning("Batch \(EventEncoder.lowercaseString(batch.id)) failed \(failures) times in a row; the batches behind it are tried first from now on, and it keeps being retried after them.")
            }
            var delay = backoff.recordFailure(retryAfter: retryAfter, using: &random)
            if settings.backoffScale != 1 { delay = delay * settings.backoffScale }
            resumeAt = clock.now.advanced(by: delay)
            scheduleTimer(after: delay)
            let reason: String
            switch attempted.outcome {
            case .answered(let response) where (200..<300).contains(response.status):
                // Only 202 means accepted: a 2xx from something else (a relay, a proxy, a wrong
                // endpoint) is not taken as delivery, and the log says what to check.
                reason = "HTTP \(response.status), not 202: is the endpoint the ingest itself?"
            case .answered(let response): reason = "HTTP \(response.status)"
            case .failed(let error): reason = error.description
            }
            if !failureEpisodeLogged {
                failureEpisodeLogged = true
                logger.warning("Could not deliver to the ingest (\(reason)); retrying with backoff. Events stay on disk.")
            }
            reports.publish(.willRetry(batchID: batch.id, after: delay, reason: reason))
            return false
        }
    }

    /// A batch that left the queue (delivered, set aside, split, dropped) has no failures to count.
    private func forgetFailures(of id: UUID) {
        failuresByBatch[id] = nil
        demoted.remove(id)
    }

    /// One timer at a time: a newer one makes the older one's firing stale.
    private func scheduleTimer(after delay: Duration) {
        timer?.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        let clock = clock
        let signals = signals
        timer = Task {
            do { try await clock.sleep(for: delay) } catch { return }
            signals.yield(.timerFired(generation: generation))
        }
    }

    /// Ends the loop's timer at shutdown.
    func stop() {
        timer?.cancel()
        timer = nil
    }
}
