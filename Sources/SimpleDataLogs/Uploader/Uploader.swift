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
    private let intake: Intake
    private let signals: AsyncStream<UploaderSignal>.Continuation
    /// The outbox's queue, as it changes.
    private let feed: BatchFeed

    private var machine: UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>
    /// The one running timer; replaced (and cancelled) by each ``UploaderStateMachine/Action/startTimer(after:generation:)``.
    private var timer: Task<Void, Never>?

    init(
        clock: C, wallClock: any WallClock, outbox: OutboxActor, settings: UploaderSettings, logger: SDKLogger,
        reports: DeliveryReportHub, intake: Intake, signals: AsyncStream<UploaderSignal>.Continuation, feed: BatchFeed,
        executor: ThreadExecutor
    ) {
        self.clock = clock
        self.wallClock = wallClock
        self.outbox = outbox
        self.settings = settings
        self.logger = logger
        self.reports = reports
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
    private func sendPass(after wake: UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>.Wake) async {
        // What the outbox posted is taken even when no pass starts, so the copy stays current.
        machine.apply(feed.take())
        guard machine.startsPass(after: wake, at: clock.now), settings.builder != nil, intake.isEnabled else { return }
        machine.beginPass()
        var tried: Set<UUID> = []
        var unreadable: [(batch: StoredBatch, error: FileSystemError)] = []
        // Batches read while the previous round was in flight (see `send`).
        var prefetched: [UUID: SealedBatch] = [:]
        while !Task.isCancelled {
            // Batches sealed (or evicted) while the last round was in flight count in this one.
            machine.apply(feed.take())
            let round = machine.nextRound(tried: tried)
            guard !round.isEmpty, intake.isEnabled else { break }
            // Every batch taken counts as tried, sent or not: one that cannot be loaded must not
            // be taken again in this pass (it was, and the pass spun a core forever).
            for batch in round { tried.insert(batch.id) }
            // The round after this one as the queue stands now: read while this one is in flight.
            let likelyNext = machine.nextRound(tried: tried)
            let (outcomes, failedReads) = await send(round, prefetched: &prefetched, readAhead: likelyNext)
            unreadable += failedReads
            var passGoesOn = true
            for (batch, attempted) in outcomes {
                let step = machine.answered(
                    attempted.outcome, attempt: attempted.attempt, batch: batch,
                    sentAt: attempted.sentAt, now: clock.now, wallNow: wallClock.now()
                )
                await perform(step.actions, for: batch)
                passGoesOn = passGoesOn && step.passGoesOn
            }
            if !passGoesOn { break }
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

    /// One try of each batch, concurrently, each under the uploader's own deadline; and the
    /// batches whose files could not be read.
    ///
    /// While the requests are in flight, the batches of `readAhead` (the likely next round) are
    /// read into `prefetched`, on this thread, so the next round's requests leave without waiting
    /// for the outbox's thread and the disk: the reading is off the critical path (issue 15). A batch file never
    /// changes once sealed, so a copy read early is the batch; one the queue has dropped since is
    /// never asked for, and is forgotten with the pass. Only batches that loaded are kept: a read
    /// that failed is made again, with its effects, when its round comes.
    private func send(
        _ batches: [StoredBatch], prefetched: inout [UUID: SealedBatch], readAhead: [StoredBatch]
    ) async -> (sent: [(StoredBatch, Attempted)], unreadable: [(StoredBatch, FileSystemError)]) {
        var loaded: [(StoredBatch, SealedBatch)] = []
        var unreadable: [(StoredBatch, FileSystemError)] = []
        for batch in batches {
            if let sealed = prefetched.removeValue(forKey: batch.id) {
                loaded.append((batch, sealed))
                continue
            }
            switch await outbox.load(batch.id) {
            case .loaded(let sealed): loaded.append((batch, sealed))
            case .gone: machine.batchGone(batch.id)
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
            for batch in readAhead where prefetched[batch.id] == nil {
                if let sealed = await readEarly(batch.id) { prefetched[batch.id] = sealed }
            }
            var results: [(StoredBatch, Attempted)] = []
            for await (index, attempted) in group { results.append((loaded[index].0, attempted)) }
            return (results.sorted { StoredBatch.isOlder($0.0, $1.0) }, unreadable)
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
        /// When the round's requests left, on the client's clock.
        var sentAt: C.Instant
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
