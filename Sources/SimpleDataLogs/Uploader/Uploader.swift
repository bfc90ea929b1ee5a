#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Delivers sealed batches, oldest first, exactly as INGEST-API.md says: the thin actor under
/// ``UploaderStateMachine``, which makes every decision.
///
/// One loop (`run`) does all the sending, driven by its one input queue (``UploaderInput``): the
/// outbox's queue changes, a timer running out, `flush()`, going online. The actor reads each
/// batch's file itself, on its own thread, from the folder the outbox named, and checks what it
/// read (``BatchReader``); it asks the machine whether to start a pass and which batches go next,
/// sends them (request, transport, deadline) and hands each answer back; the machine returns
/// actions that the actor performs in order. What the outbox must do on disk (delete, set aside,
/// split, drop) goes back as ``DeliveryOutcome`` messages, never as an awaited call. Generic over
/// the clock so that deadlines and probe times are the clock's own instants; tests pass
/// `ManualClock`.
actor Uploader<C: Clock> where C.Duration == Duration {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let clock: C
    private let wallClock: any WallClock
    /// Only for going back online (``UploaderInput/online``): the open batch is sealed first.
    private let outbox: OutboxActor
    private let settings: UploaderSettings
    private let logger: SDKLogger
    private let reports: DeliveryReportHub
    /// Where each answer's round trip is kept, for the metric snapshots.
    private let counters: StageCounters
    private let intake: Intake
    /// Everything that reaches this actor, taken all at once per wake-up.
    private let input: HandOffQueue<UploaderInput>
    /// The outbox's input: what this actor did with batches goes there as
    /// ``OutboxInput/delivery(_:)`` messages, for the outbox's loop to carry out.
    private let outboxInput: HandOffQueue<OutboxInput>
    private let reader: BatchReader
    /// Where the queued batches' files are, as the outbox last said (nil: memory only).
    private var batchesFolder: String?
    /// Builds every request: the settings' at first, then the rotated key's
    /// (``UploaderInput/keyRotated(_:)``). `nil` when nothing may be sent.
    private var builder: UploadRequestBuilder?

    private var machine: UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>
    /// The one backoff or key-probe timer: each ``UploaderStateMachine/Action/startTimer(after:generation:)``
    /// replaces it; its firing is an input like any other (the machine tells a stale one by its
    /// own generation).
    private let timer: MessageTimer<UploaderInput>
    /// Inputs taken during a pass that need a pass of their own (a flush, a timer, going
    /// online): handled, in order, once the pass ends.
    private var deferred: [UploaderInput] = []
    /// One warning per client for a batch file that held something else than its batch.
    private var mismatchLogged = false

    init(
        clock: C, wallClock: any WallClock, outbox: OutboxActor, settings: UploaderSettings, logger: SDKLogger,
        reports: DeliveryReportHub, counters: StageCounters, intake: Intake, input: HandOffQueue<UploaderInput>,
        outboxInput: HandOffQueue<OutboxInput>, executor: ThreadExecutor
    ) {
        self.clock = clock
        self.wallClock = wallClock
        self.outbox = outbox
        self.settings = settings
        builder = settings.builder
        self.logger = logger
        self.reports = reports
        self.counters = counters
        self.intake = intake
        self.input = input
        self.outboxInput = outboxInput
        timer = MessageTimer(clock: clock) { [input] in input.push($0) }
        reader = BatchReader(fileSystem: outbox.fileSystem)
        self.executor = executor
        machine = UploaderStateMachine(
            maxConcurrentRequests: settings.maxConcurrentRequests, backoffScale: settings.backoffScale,
            random: SystemRandomNumberGenerator()
        )
    }

    /// Handles the input until the queue finishes; the flushes still waiting then are let go.
    func run() async {
        for await arrived in input {
            var taken = deferred + arrived
            deferred = []
            // What a pass deferred (a flush, a timer) and what arrived during it go next,
            // without waiting for another wake-up.
            while !taken.isEmpty {
                await handle(taken)
                taken = deferred + input.takeAll()
                deferred = []
            }
        }
        timer.cancel()
        for case .flush(let barrier, _) in deferred + input.takeAll() { barrier.pass() }
    }

    /// Handles one wake-up's inputs in order: queue changes are applied as they come, and the
    /// run of them starts one pass; a timer, a flush and going online start one each.
    private func handle(_ inputs: [UploaderInput]) async {
        var batchesChanged = false
        for item in inputs {
            if apply(item) {
                batchesChanged = true
                continue
            }
            if batchesChanged {
                batchesChanged = false
                await sendPass(after: .batchesAvailable)
            }
            switch item {
            case .timerFired(let generation):
                await sendPass(after: .timerFired(generation: generation))
            case .flush(let barrier, let lastChance):
                await sendPass(after: .flush(lastChance: lastChance))
                barrier.pass()
            case .online:
                // Back online: the open batch is sealed first, so the events journaled while
                // offline go in this pass instead of waiting for its timer (about 4 s).
                await outbox.sealOpenBatch()
                await sendPass(after: .batchesAvailable)
            case .queue, .splitEnded, .keyRotated:
                break
            }
        }
        if batchesChanged { await sendPass(after: .batchesAvailable) }
    }

    /// Applies an input that changes the machine's copy of the queue; false for the others.
    private func apply(_ item: UploaderInput) -> Bool {
        switch item {
        case .queue(let changes, let folder):
            batchesFolder = folder
            machine.apply(changes)
            return true
        case .splitEnded(let parent, let halves):
            perform(machine.splitEnded(parent: parent, halves: halves))
            return true
        case .keyRotated(let key):
            // Counted as a queue change: the run it ends starts a pass, which the pause, now
            // over, no longer holds back.
            builder = builder?.replacingKey(with: key)
            perform(machine.keyRotated())
            return true
        case .timerFired, .flush, .online:
            return false
        }
    }

    /// Takes what arrived during a pass: queue changes count at once; the rest waits for the
    /// pass's end (``deferred``).
    private func takeInputDuringPass() {
        for item in input.takeAll() where !apply(item) { deferred.append(item) }
    }

    /// Sends queued batches, oldest first, up to `maxConcurrentRequests` at once, when the
    /// machine says the wake-up starts a pass. A flush tries each queued batch once and ignores
    /// a backoff; a normal pass goes on until the queue is empty or an answer says to wait.
    ///
    /// A sliding window (issue 15): as soon as one request is answered, the next batch goes, so
    /// the requests in flight do not drain to zero between rounds. An answer that says to wait
    /// (a backoff, a 401) stops new requests; the ones in flight are still heard. While a place
    /// is free, the pass also listens to its input (``PassEvent/inputArrived``): a batch sealed
    /// while the answers are slow leaves at once instead of waiting for one of them.
    private func sendPass(after wake: UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>.Wake) async {
        // What arrived is taken even when no pass starts, so the copy stays current.
        takeInputDuringPass()
        // Offline: no pass, and the wake-up changes nothing (a timer that fired meanwhile has
        // passed its time, so the pass that going online starts honours it anyway).
        guard !settings.sending.isOffline else { return }
        guard machine.startsPass(after: wake, at: clock.now), builder != nil, intake.isEnabled else { return }
        perform(machine.beginPass())
        // Batches read while others were in flight (see `readAhead`).
        var prefetched: [UUID: SealedBatch] = [:]
        let settings = settings
        let clock = clock
        let wallClock = wallClock
        let logger = logger
        let input = input
        await withTaskGroup(of: PassEvent.self) { group in
            // A child waits for input (``HandOffQueue/waitForItems()``) while this is true.
            var listening = false
            while true {
                // Fill every free place, oldest first (the machine's pass says which, and counts
                // what it tried and what is in flight). Batches sealed or evicted meanwhile count
                // at once.
                takeInputDuringPass()
                let mayStart = !Task.isCancelled && intake.isEnabled && !settings.sending.isOffline
                while let batch = machine.takeNext(mayStart: mayStart) {
                    if let sealed = load(batch, prefetched: &prefetched), let builder {
                        // Read as the request leaves: a failure counted after this makes its own
                        // failure part of that round (counted once); the key's generation tells a
                        // 401 to the key before a rotation from one to the new key.
                        let round = machine.requestLeft()
                        let keyGeneration = machine.keyGeneration
                        group.addTask {
                            var attempted = await Self.attempt(
                                sealed, round: round, builder: builder, settings: settings, clock: clock, wallClock: wallClock, logger: logger
                            )
                            attempted.keyGeneration = keyGeneration
                            return .answered(batch, attempted)
                        }
                    }
                    takeInputDuringPass()
                }
                // While those are in flight, read the batches that will go next.
                readAhead(machine.readAheadCandidates, into: &prefetched)
                guard machine.awaitsAnswers else { break }
                // Not once cancelled: a child added then returns at once, and would spin.
                if !listening, mayStart, machine.hasFreePlace, !input.isFinished {
                    listening = true
                    group.addTask {
                        await input.waitForItems()
                        return .inputArrived
                    }
                }
                guard let event = await group.next() else { break }
                guard case .answered(let batch, let attempted) = event else {
                    // Taken at the loop's top; the places it frees are filled there.
                    listening = false
                    continue
                }
                if let roundTrip = attempted.roundTrip { counters.recordAnswer(roundTrip: roundTrip) }
                let step = machine.answered(
                    attempted.outcome, attempt: attempted.attempt, batch: batch,
                    sentAt: attempted.sentAt, sentInRound: attempted.round, now: clock.now, elapsed: attempted.elapsed, wallNow: wallClock.now(),
                    keyGeneration: attempted.keyGeneration
                )
                perform(step.actions)
            }
            // No request is in flight now: the only child left, if any, is the one listening.
            group.cancelAll()
        }
        perform(machine.endPass())
    }

    /// What a pass's task group hands back: an answer, or input that arrived while a place in
    /// flight was free.
    private enum PassEvent: Sendable {
        case answered(StoredBatch, Attempted)
        case inputArrived
    }

    /// Performs the machine's actions in order. What the outbox must do goes into its input as
    /// one ``OutboxInput/delivery(_:)`` message for the lot (one wake-up), never awaited. When
    /// there is such a message, the reports go in it too, in order, for the outbox to publish
    /// once it has applied the outcomes (and counted them): a report never runs ahead of the
    /// counters. Reports of answers that change nothing on disk (a retry, a pause) go at once.
    private func perform(_ actions: [UploaderStateMachine<C.Instant, SystemRandomNumberGenerator>.Action]) {
        let viaOutbox = actions.contains { $0.isOutboxCall }
        var outcomes: [DeliveryOutcome] = []
        for action in actions {
            switch action {
            case .markDelivered(let id, let rejected):
                outcomes.append(.delivered(id, rejected: rejected))
            case .split(let id):
                outcomes.append(.split(id))
            case .dropTooLarge(let id):
                outcomes.append(.tooLarge(id))
            case .setAside(let id):
                outcomes.append(.setAside(id))
            case .log(let level, let message):
                logger.log(level, message)
            case .publish(let report):
                if viaOutbox { outcomes.append(.announce(report)) } else { reports.publish(report) }
            case .startTimer(let delay, let generation):
                startTimer(after: delay, generation: generation)
            }
        }
        if !outcomes.isEmpty { outboxInput.push(.delivery(outcomes)) }
    }

    /// Replaces the running timer; its firing carries the machine's generation, so the machine
    /// can tell a stale one.
    private func startTimer(after delay: Duration, generation: Int) {
        timer.start(after: delay) { _ in .timerFired(generation: generation) }
    }

    /// A batch's events: the copy read ahead, or read now (a vanished file goes to the outbox
    /// to be checked and counted; an unreadable or mismatched one is noted for the pass's end).
    private func load(_ batch: StoredBatch, prefetched: inout [UUID: SealedBatch]) -> SealedBatch? {
        if let sealed = prefetched.removeValue(forKey: batch.id) { return sealed }
        switch readBatch(batch) {
        case .loaded(let sealed):
            return sealed
        case .vanished:
            machine.batchGone(batch.id)
            outboxInput.push(.delivery([.vanished(batch.id)]))
        case .unreadable(let error):
            machine.keptBack(batch, error: error)
        case .mismatched(let reason):
            noteMismatch(batch, reason: reason)
            machine.keptBack(batch, error: FileSystemError(code: EIO, operation: "check (\(reason))", path: batch.fileName))
        }
        return nil
    }

    /// A batch file that held something else than its batch: counted, one line per client. The
    /// batch is not sent under its id; it stays queued and is read again later (its file may
    /// have been recycled after an eviction the uploader has not heard of yet, which then
    /// takes it out of the queue).
    private func noteMismatch(_ batch: StoredBatch, reason: String) {
        counters.recordMismatchedRead()
        guard !mismatchLogged else { return }
        mismatchLogged = true
        logger.error("Batch file \(batch.fileName) did not hold the batch queued under its name (\(reason)); not sent under its id, kept, and read again later. Later such files are counted, not logged.")
    }

    /// Reads the batches likely to go next into `prefetched`, on this thread, while requests are
    /// in flight, so they leave without waiting for the disk: the reading is off the critical
    /// path (issue 15). Each copy is checked against its batch (``BatchReader``), so a file
    /// recycled under the read is never kept; one the queue has dropped since is never asked
    /// for, and is forgotten with the pass. Only batches that loaded are kept: a read that failed
    /// is made again, with its effects, when the batch's turn comes.
    private func readAhead(_ batches: [StoredBatch], into prefetched: inout [UUID: SealedBatch]) {
        for batch in batches where prefetched[batch.id] == nil {
            switch readBatch(batch) {
            case .loaded(let sealed): prefetched[batch.id] = sealed
            case .mismatched(let reason): noteMismatch(batch, reason: reason)
            case .vanished, .unreadable: break
            }
        }
    }

    /// One batch read on this thread, the uploader's own (not the cooperative pool's).
    private func readBatch(_ batch: StoredBatch) -> BatchReader.Read {
        reader.read(batch, in: batchesFolder)
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
        /// The machine's ``UploaderStateMachine/keyGeneration`` when the request left.
        var keyGeneration = 0

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
