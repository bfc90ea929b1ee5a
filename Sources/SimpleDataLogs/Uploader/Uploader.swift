import Foundation

/// Delivers sealed batches, oldest first, exactly as INGEST-API.md says: the thin actor under
/// ``UploaderStateMachine``, which makes every decision.
///
/// One loop (`run`) does all the sending, driven by ``UploaderSignal``s: the outbox says batches
/// are ready, a timer runs out, or `flush()` asks for a pass. The actor asks the machine whether
/// to start a pass and which batches go next, sends them (load, request, transport, deadline) and
/// hands each answer back; the machine returns actions (tell the outbox, log, publish, start a
/// timer) that the actor performs in order. Generic over the clock so that deadlines and probe
/// times are the clock's own instants; tests pass `ManualClock`.
actor Uploader<C: Clock> where C.Duration == Duration {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let clock: C
    private let wallClock: any WallClock
    private let outbox: OutboxActor
    private let settings: UploaderSettings
    private let logger: SDKLogger
    private let reports: DeliveryReportHub
    /// Where each answer's round trip is kept, for the metric snapshots.
    private let counters: StageCounters
    private let intake: Intake
    private let signals: AsyncStream<UploaderSignal>.Continuation
    /// The outbox's queue, as it changes.
    private let feed: BatchFeed

    private var machine: UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>
    /// The one running timer; replaced (and cancelled) by each ``UploaderStateMachine/Action/startTimer(after:generation:)``.
    private var timer: Task<Void, Never>?

    init(
        clock: C, wallClock: any WallClock, outbox: OutboxActor, settings: UploaderSettings, logger: SDKLogger,
        reports: DeliveryReportHub, counters: StageCounters, intake: Intake, signals: AsyncStream<UploaderSignal>.Continuation,
        feed: BatchFeed, executor: ThreadExecutor
    ) {
        self.clock = clock
        self.wallClock = wallClock
        self.outbox = outbox
        self.settings = settings
        self.logger = logger
        self.reports = reports
        self.counters = counters
        self.intake = intake
        self.signals = signals
        self.feed = feed
        self.executor = executor
        machine = UploaderStateMachine(
            maxConcurrentRequests: settings.maxConcurrentRequests, backoffScale: settings.backoffScale,
            random: SystemRandomNumberGenerator()
        )
    }

    /// Handles signals until the stream finishes.
    func run(_ input: AsyncStream<UploaderSignal>) async {
        for await signal in input {
            switch signal {
            case .batchesAvailable:
                await sendPass(after: .batchesAvailable)
            case .online:
                // Back online: the open batch is sealed first, so the events journaled while
                // offline go in this pass instead of waiting for its timer (about 4 s).
                await outbox.sealOpenBatch()
                await sendPass(after: .batchesAvailable)
            case .timerFired(let generation):
                await sendPass(after: .timerFired(generation: generation))
            case .flush(let barrier, let lastChance):
                await sendPass(after: .flush(lastChance: lastChance))
                barrier.pass()
            }
        }
        timer?.cancel()
    }

    /// Sends queued batches, oldest first, up to `maxConcurrentRequests` at once, when the
    /// machine says the wake-up starts a pass. A flush tries each queued batch once and ignores
    /// a backoff; a normal pass goes on until the queue is empty or an answer says to wait.
    ///
    /// A sliding window (issue 15): as soon as one request is answered, the next batch goes, so
    /// the requests in flight do not drain to zero between rounds. An answer that says to wait
    /// (a backoff, a 401) stops new requests; the ones in flight are still heard.
    private func sendPass(after wake: UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>.Wake) async {
        // What the outbox posted is taken even when no pass starts, so the copy stays current.
        machine.apply(feed.take())
        // Offline: no pass, and the wake-up changes nothing (a timer that fired meanwhile has
        // passed its time, so the pass that going online starts honours it anyway).
        guard !settings.sending.isOffline else { return }
        guard machine.startsPass(after: wake, at: clock.now), let builder = settings.builder, intake.isEnabled else { return }
        await perform(machine.beginPass(), for: nil)
        var tried: Set<UUID> = []
        var unreadable: [(batch: StoredBatch, error: FileSystemError)] = []
        // Batches read while others were in flight (see `readAhead`).
        var prefetched: [UUID: SealedBatch] = [:]
        let settings = settings
        let clock = clock
        let wallClock = wallClock
        let logger = logger
        await withTaskGroup(of: (StoredBatch, Attempted).self) { group in
            var inFlight = 0
            var passGoesOn = true
            while true {
                // Fill every free place, oldest first. Every batch taken counts as tried, sent or
                // not: one that cannot be loaded must not be taken again in this pass (it was,
                // and the pass spun a core forever).
                while passGoesOn, inFlight < settings.maxConcurrentRequests, !Task.isCancelled, intake.isEnabled, !settings.sending.isOffline {
                    // Batches sealed (or evicted) meanwhile count at once.
                    machine.apply(feed.take())
                    guard let batch = machine.nextRound(tried: tried).first else { break }
                    tried.insert(batch.id)
                    guard let sealed = await load(batch, prefetched: &prefetched, unreadable: &unreadable) else { continue }
                    // Read as the request leaves: a failure counted after this makes its own
                    // failure part of that round (counted once).
                    let round = machine.failureRound
                    group.addTask {
                        (batch, await Self.attempt(
                            sealed, round: round, builder: builder, settings: settings, clock: clock, wallClock: wallClock, logger: logger
                        ))
                    }
                    inFlight += 1
                }
                // While those are in flight, read the batches that will go next.
                if passGoesOn { await readAhead(machine.nextRound(tried: tried), into: &prefetched) }
                guard inFlight > 0, let (batch, attempted) = await group.next() else { break }
                inFlight -= 1
                if let roundTrip = attempted.roundTrip { counters.recordAnswer(roundTrip: roundTrip) }
                let step = machine.answered(
                    attempted.outcome, attempt: attempted.attempt, batch: batch,
                    sentAt: attempted.sentAt, sentInRound: attempted.round, now: clock.now, elapsed: attempted.elapsed, wallNow: wallClock.now()
                )
                await perform(step.actions, for: batch)
                passGoesOn = passGoesOn && step.passGoesOn
            }
        }
        await perform(machine.passEnded(unreadable: unreadable), for: nil)
    }

    /// Performs the machine's actions in order; a split's result goes back to the machine.
    private func perform(_ actions: [UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>.Action], for batch: StoredBatch?) async {
        for action in actions {
            switch action {
            case .markDelivered(let id, let rejected):
                await outbox.markDelivered(id, rejected: rejected)
            case .split(let id):
                let halves = await outbox.split(id)
                if let batch { await perform(machine.splitEnded(batch, halves: halves), for: batch) }
            case .dropTooLarge(let id):
                await outbox.dropTooLarge(id)
            case .setAside(let id):
                await outbox.setAside(id)
            case .log(let level, let message):
                logger.log(level, message)
            case .publish(let report):
                reports.publish(report)
            case .startTimer(let delay, let generation):
                startTimer(after: delay, generation: generation)
            }
        }
    }

    /// Replaces the running timer; its firing carries its generation, so the machine can tell a
    /// stale one.
    private func startTimer(after delay: Duration, generation: Int) {
        timer?.cancel()
        let clock = clock
        let signals = signals
        timer = Task {
            do { try await clock.sleep(for: delay) } catch { return }
            signals.yield(.timerFired(generation: generation))
        }
    }

    /// A batch's events: the copy read ahead, or the outbox's `load` (with its effects: a
    /// vanished file is counted and forgotten, an unreadable one noted for the pass's end).
    private func load(
        _ batch: StoredBatch, prefetched: inout [UUID: SealedBatch], unreadable: inout [(batch: StoredBatch, error: FileSystemError)]
    ) async -> SealedBatch? {
        if let sealed = prefetched.removeValue(forKey: batch.id) { return sealed }
        switch await outbox.load(batch.id) {
        case .loaded(let sealed): return sealed
        case .gone: machine.batchGone(batch.id)
        case .unreadable(let error): unreadable.append((batch, error))
        }
        return nil
    }

    /// Reads the batches likely to go next into `prefetched`, on this thread, while requests are
    /// in flight, so they leave without waiting for the outbox's thread and the disk: the
    /// reading is off the critical path (issue 15). A batch file never changes once sealed, so a
    /// copy read early is the batch; one the queue has dropped since is never asked for, and is
    /// forgotten with the pass. Only batches that loaded are kept: a read that failed is made
    /// again, with its effects, when the batch's turn comes.
    private func readAhead(_ batches: [StoredBatch], into prefetched: inout [UUID: SealedBatch]) async {
        for batch in batches where prefetched[batch.id] == nil {
            if let sealed = await readEarly(batch.id) { prefetched[batch.id] = sealed }
        }
    }

    /// One try of one batch under the uploader's own deadline (a 415 to a gzip body: once more,
    /// uncompressed). Runs in a child task, off the actor. Each request sent gets one debug line.
    private static func attempt(
        _ sealed: SealedBatch, round: Int, builder: UploadRequestBuilder, settings: UploaderSettings, clock: C, wallClock: any WallClock,
        logger: SDKLogger
    ) async -> Attempted {
        let sentAt = wallClock.nowMilliseconds
        let sentInstant = clock.now
        var gzip = settings.compresses
        while true {
            let request = builder.request(batchID: sealed.id, payloads: sealed.payloads, sentAt: sentAt, gzip: gzip, timeout: settings.requestTimeout)
            logger.debug(
                "Sending batch \(EventEncoder.lowercaseString(sealed.id)): \(sealed.payloads.count) events, \(LogFormat.bytes(request.body.count))"
                    + (request.isGzipped ? " gzipped (\(LogFormat.bytes(sealed.bodyBytes)) of JSON)." : " of JSON.")
            )
            let requestSent = clock.now
            let outcome = await sendWithDeadline(request, transport: settings.transport, clock: clock, timeout: settings.requestTimeout)
            // Taken here, in the child, so the time the actor takes to hear the answer is not in it.
            let elapsed = requestSent.duration(to: clock.now)
            let attempt = AnswerPolicy.Attempt(wasGzipped: request.isGzipped, eventCount: sealed.payloads.count, bodyBytes: sealed.bodyBytes)
            if case .answered(let response) = outcome, response.status == 415, attempt.wasGzipped, gzip {
                gzip = false
                continue
            }
            return Attempted(outcome: outcome, attempt: attempt, sentAt: sentInstant, round: round, elapsed: elapsed)
        }
    }

    /// A batch's events read on this thread (the uploader's own), not the outbox's; nil when
    /// it is not queued or its file cannot be read now.
    private func readEarly(_ id: UUID) async -> SealedBatch? {
        switch await outbox.location(of: id) {
        case .memory(let sealed)?:
            return sealed
        case .file(let path, let stored)?:
            guard let bytes = try? outbox.fileSystem.read(path) else { return nil }
            return SealedBatch(id: stored.id, sequence: stored.sequence, path: stored.path, payloads: BatchFile.decode(bytes).payloads)
        case nil:
            return nil
        }
    }

    struct Attempted: Sendable {
        var outcome: AnswerPolicy.Outcome
        var attempt: AnswerPolicy.Attempt
        /// When the request left, on the client's clock.
        var sentAt: C.Instant
        /// The machine's ``UploaderStateMachine/failureRound`` when the request left.
        var round: Int
        /// From the last request leaving to its outcome (an answer, or the failure), on the
        /// client's clock; after a 415 to a gzip body, the uncompressed retry's.
        var elapsed: Duration

        /// The round trip of an answered request (the metric snapshots'); nil when none came.
        var roundTrip: Duration? {
            if case .answered = outcome { elapsed } else { nil }
        }
    }

    /// Sends one request, giving up when the uploader's deadline passes on the injected clock;
    /// the transport's own timeout is only a backstop.
    private static func sendWithDeadline(_ request: UploadRequest, transport: any Transport, clock: C, timeout: Duration) async -> AnswerPolicy.Outcome {
        let outcome = await Deadline.run(timeout, on: clock) { () -> AnswerPolicy.Outcome in
            do { return .answered(try await transport.send(request)) } catch { return .failed(TransportError(classifying: error)) }
        }
        return outcome ?? .failed(TransportError(.timedOut, message: "no answer within \(timeout)"))
    }
}
