/// The running stages of one configured client, wired together, and the three tasks that own
/// them: one for the stage loops, one for the sealer's loop, one for the uploader's loop.
///
/// ```
/// track() ──▶ Intake ──wake-ups──▶ IdentityActor ──HandOffQueue──▶ SessionsActor ──HandOffQueue──▶ OutboxActor ──HandOffQueue──▶ Uploader
///             (lock)  AsyncStream<Void>   (stages thread)  [PipelineItem]                OutboxInput     (own thread)  UploaderInput   (own thread)
///                                                                                                         │ ▲ ▲                         │
///                                                                                                         │ │ └─ OutboxInput.delivery ──┘
///                                                                                                         ▼ │ SealerJob / OutboxInput.sealed
///                                                                                                     SealerActor (own thread)
/// ```
///
/// Every boundary between actors is a ``HandOffQueue`` (an `AsyncSequence` of everything
/// waiting). The intake is not an actor boundary: `track()` runs on the caller's thread and only
/// appends under the intake's lock, so the intake keeps its lock and wake-up stream.
///
/// The chunk hand-overs are unbounded on purpose: the intake admits at most its backlog of events
/// not yet written, so nothing downstream can grow past that, and a bounded one would have to
/// drop (losing events) or block; what waits for the sealer is bounded by the outbox
/// (`OutboxState.maxBytesBeingSealed`).
final class Pipeline: Sendable {
    let identity: IdentityActor
    let sessions: SessionsActor
    let outbox: OutboxActor
    let reports: DeliveryReportHub
    private let stagesExecutor: ThreadExecutor
    private let outboxExecutor: ThreadExecutor
    private let uploaderExecutor: ThreadExecutor
    private let sealerExecutor: ThreadExecutor
    /// The outbox's link to its sealer; finished (ending the sealer's loop) once the outbox closes.
    private let sealerChannel: SealerChannel
    /// Owns the sealer's loop; it outlives the stages, for the deletes of the last send.
    private let sealerTask: Task<Void, Never>
    private let intake: Intake
    private let clock: any Clock<Duration>
    /// The uploader's one input queue; `nil` when uploads are off (outbox unit tests).
    private let uploaderInput: HandOffQueue<UploaderInput>?
    /// Whether ``uploaderInput`` still has a consumer: shutdown closes it, after which a flush
    /// has nobody to pass its barrier and returns at once.
    private let uploaderInputOpen = Locked(true)
    /// Owns the identity and sessions loops; ends when the intake shuts down and both have
    /// drained. May outlive the pipeline's shutdown while a middleware step blocks the stages
    /// thread (see ``runShutdown(timeLimit:boundsSteps:)``): then it ends when the step returns.
    private let stagesTask: Task<Void, Never>
    /// Passed when ``stagesTask``'s loops have ended: a wait on it can be raced against a time
    /// limit and cancelled, which a wait on the task's value cannot.
    private let stagesEnded = Barrier()
    /// Owns the journal's loop; ends when its queue is finished and drained.
    private let outboxTask: Task<Void, Never>
    /// The outbox's input: the sessions stage's chunks, the sealer's outcomes, the outbox's
    /// timers. Finished by the sessions stage, or by shutdown when a step holds the stages
    /// thread past the time limit.
    private let toOutbox: HandOffQueue<OutboxInput>
    /// Raised by shutdown when its time limit runs out before the middleware steps are done.
    private let cutoff = StepsCutoff()
    /// Passed when shutdown gave up on the stages and counted what they held: a `flush()`
    /// waiting behind a blocked step returns then (``waitForBarrier(_:)``).
    private let stagesAbandoned = Barrier()
    /// Whether any middleware step is configured: only then can the stages be slow.
    private let hasMiddleware: Bool
    /// Logs each kind of bad input once for this client.
    let problemLog: ProblemLog
    /// Owns the uploader's loop; ends when its signals finish, or at once when cancelled.
    private let uploaderTask: Task<Void, Never>?
    private let ownedTransport: URLSessionTransport?
    /// The one shutdown, started by the first caller and awaited by every caller.
    private let shutdownTask = Locked<Task<Void, Never>?>(nil)

    init(
        intake: Intake, counters: StageCounters, logger: SDKLogger, directory: String?,
        clock: any Clock<Duration>, wallClock: any WallClock, policy: SealPolicy, caps: OutboxCaps = OutboxCaps(),
        uploader settings: UploaderSettings, autocapture: AutocaptureSettings, middleware: [EventMiddleware] = [],
        usesInstallID: Bool = false, automaticContext: AutomaticContext = [], intakeLog: IntakeLogFile? = nil,
        crashRecordPath: Locked<String?> = Locked(nil), receipts: ReceiptSettings = .off, tuning: ClientTuning, faults: FaultInjection
    ) {
        self.intake = intake
        // `configure` made this run's intake log: what the intake held before it goes into it
        // now, and every later call as it is made. The outbox queues what ended runs' logs left
        // (also when this run keeps none) once it holds its area: until then the intake holds
        // what it takes, so the replay goes in front of it.
        let intakeLogPath = directory == nil ? nil : intakeLog?.path
        if directory != nil {
            intake.expectLog()
            if let intakeLog {
                var writer = IntakeLogWriter(file: intakeLog, slotCount: intakeLog.ring.slotCount)
                _ = writer.start()
                intake.installLog(writer)
            }
        }
        self.clock = clock
        ownedTransport = settings.ownedTransport
        let problemLog = ProblemLog(logger: logger)
        self.problemLog = problemLog
        hasMiddleware = !middleware.isEmpty
        let chain = MiddlewareChain(steps: middleware)
        stagesExecutor = ThreadExecutor(name: "sdl.stages")
        outboxExecutor = ThreadExecutor(name: "sdl.outbox")
        uploaderExecutor = ThreadExecutor(name: "sdl.uploader")
        sealerExecutor = ThreadExecutor(name: "sdl.sealer")
        let reports = DeliveryReportHub()
        self.reports = reports
        // Every stage that touches the storage folder goes through one confined to it: no link
        // inside it is followed, nothing outside it is removed or renamed.
        let fileSystem = directory.map { faults.fileSystem.confined(to: $0) } ?? faults.fileSystem
        let identity = IdentityActor(
            intake: intake, counters: counters, problemLog: problemLog, middleware: chain, cutoff: cutoff,
            installIDs: usesInstallID ? InstallIDStore(folder: directory, fileSystem: fileSystem) : nil,
            context: (automaticContext, tuning.contextSource ?? .system), logger: logger, executor: stagesExecutor
        )
        let sessions = SessionsActor(
            sessionMode: autocapture.capture.contains(.sessions) ? autocapture.sessionMode : nil,
            tracksActivity: autocapture.activity == .on, intake: intake, middleware: chain, cutoff: cutoff,
            counters: counters, problemLog: problemLog, executor: stagesExecutor
        )
        let toOutbox = HandOffQueue<OutboxInput>()
        self.toOutbox = toOutbox
        let sealerChannel = SealerChannel(outbox: toOutbox)
        self.sealerChannel = sealerChannel
        let sealer = SealerActor(fileSystem: fileSystem, crashPoint: faults.crashPoint, executor: sealerExecutor)
        // Each owning task runs on one of the pipeline's threads, not the cooperative pool (see
        // `Task.preferring`): starting, waiting for its loop and ending need no pool thread.
        sealerTask = Task.preferring(sealerExecutor) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask(preferring: sealer.executor) { await sealer.run(sealerChannel) }
            }
        }
        // A tuned seal policy or caps replaces what the configuration made.
        let outbox = OutboxActor(
            directory: directory, fileSystem: fileSystem, logger: logger, problemLog: problemLog,
            counters: counters, intake: intake, clock: clock, faults: faults,
            policy: tuning.sealPolicy ?? policy, caps: tuning.caps ?? caps,
            autocapture: autocapture, input: toOutbox, sealer: sealerChannel,
            owner: settings.owner, formerOwners: settings.formerOwners, middleware: chain, reports: reports, intakeLogPath: intakeLogPath,
            crashRecordPath: crashRecordPath, receipts: receipts, executor: outboxExecutor
        )
        self.identity = identity
        self.sessions = sessions
        self.outbox = outbox
        let toSessions = HandOffQueue<[PipelineItem]>()

        let link: HandOffQueue<UploaderInput>?
        if tuning.startsUploader {
            // Unbounded: the input holds at most the outbox's queue changes since the uploader's
            // last look (bounded by the caps) and a few wake-ups. The uploader's outcomes go into
            // the outbox's own input (at most one message per pass of the uploader's actions).
            let input = HandOffQueue<UploaderInput>()
            uploaderInput = input
            link = input
            let uploader = Self.makeUploader(
                clock: clock, wallClock: wallClock, outbox: outbox, settings: settings, logger: logger,
                reports: reports, counters: counters, intake: intake, input: input, outboxInput: toOutbox,
                executor: uploaderExecutor
            )
            let executor = uploaderExecutor
            uploaderTask = Task.preferring(executor) {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask(preferring: executor) { await uploader() }
                }
            }
        } else {
            uploaderInput = nil
            link = nil
            uploaderTask = nil
        }
        let stagesEnded = stagesEnded
        // Each loop prefers its actor's thread, so that it is woken there, not on the pool. The
        // journal's loop has a task of its own: shutdown may have to finish it without the
        // stages, when a step holds their thread.
        outboxTask = Task.preferring(outboxExecutor) {
            if let link { await outbox.attach(uploader: link) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask(preferring: outbox.executor) { await outbox.run() }
            }
        }
        stagesTask = Task.preferring(stagesExecutor) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask(preferring: identity.executor) { await identity.run(output: toSessions) }
                group.addTask(preferring: sessions.executor) { await sessions.run(input: toSessions, output: toOutbox) }
            }
            stagesEnded.pass()
        }
    }

    /// Opens the clock's concrete type, so the uploader works with the clock's own instants.
    private static func makeUploader<C: Clock>(
        clock: C, wallClock: any WallClock, outbox: OutboxActor, settings: UploaderSettings, logger: SDKLogger,
        reports: DeliveryReportHub, counters: StageCounters, intake: Intake, input: HandOffQueue<UploaderInput>,
        outboxInput: HandOffQueue<OutboxInput>, executor: ThreadExecutor
    ) -> @Sendable () async -> Void where C.Duration == Duration {
        let uploader = Uploader(
            clock: clock, wallClock: wallClock, outbox: outbox, settings: settings, logger: logger,
            reports: reports, counters: counters, intake: intake, input: input, outboxInput: outboxInput,
            executor: executor
        )
        return { await uploader.run() }
    }

    /// Pushes `item` to the uploader while its loop still takes input.
    /// - Returns: Whether it was pushed.
    private func pushToUploader(_ item: UploaderInput) -> Bool {
        guard let uploaderInput else { return false }
        return uploaderInputOpen.withLock { open in
            if open { uploaderInput.push(item) }
            return open
        }
    }

    /// Back online: the uploader seals the open batch and makes a pass over the queue at once.
    func wakeUploader() {
        _ = pushToUploader(.online)
    }

    /// Seals the open batch and has the uploader try every queued batch once; returns when that
    /// attempt ends, or at once when the calling task is cancelled (the attempt goes on).
    /// - Parameter lastChance: Whether what is left is deleted afterwards (`flushAndDisable`):
    ///   the try is made during a 401 pause too.
    func flushOnce(lastChance: Bool = false) async {
        await outbox.sealOpenBatch()
        // A pass over the queue; again for the halves of batches split in it (each split halves
        // a batch, so a few rounds at most).
        for _ in 0..<Self.maxFlushRounds {
            let done = Barrier()
            // After shutdown the uploader's loop is gone: nothing would pass the barrier.
            guard pushToUploader(.flush(done, lastChance: lastChance)) else { return }
            await done.wait()
            // What the pass did is carried out now, once per flush (not once per batch): the
            // delivered files' deletes go to the sealer before the wait below counts them.
            let splits = await outbox.applyWaitingDeliveryOutcomes()
            guard splits > 0, !Task.isCancelled else { break }
        }
        // The delivered batches' files are deleted by the sealer: flush returns once they are.
        if !Task.isCancelled { await sealerChannel.caughtUp() }
    }

    /// Passes one flush makes at most: the first, and one per level of 413 splits (a batch of
    /// 1,000 events is down to single events after 10).
    static let maxFlushRounds = 12

    /// Stops the intake, lets every stage finish what it holds, tries one send, keeps the rest
    /// on disk, and stops the threads, all within `timeLimit` (on the client's clock).
    ///
    /// The time limit bounds the middleware steps too: when it runs out while they are still
    /// working through the queue, the steps get no more events, and a step still running is
    /// given ``stepGrace`` to return. What has not reached the journal by then is counted as
    /// dropped at shutdown, with one log line. A step that never returns keeps the stages thread
    /// (a thread cannot be stopped from outside): it is left behind, and the rest of shutdown
    /// goes on without it.
    ///
    /// The work runs in a task of its own, not the caller's: a shutdown asked for by a cancelled
    /// task (a server's service being torn down, a `withClient` scope left by cancellation) still
    /// makes its one bounded send, and only `timeLimit` cuts it short. Concurrent and later calls
    /// wait for the same shutdown instead of running a second one.
    /// - Parameters:
    ///   - timeLimit: How long the whole shutdown may take, the steps and the last send included.
    ///   - boundsSteps: Whether `timeLimit` bounds the steps; false for a client released
    ///     without `shutdown()`, whose queued events pass the steps however long they take
    ///     (nobody waits for it, and no time was chosen).
    ///   - finished: Runs once, when the first caller's shutdown has ended (the closing log line).
    func shutDown(timeLimit: Duration, boundsSteps: Bool = true, finished: @escaping @Sendable () -> Void = {}) async {
        let task: Task<Void, Never> = shutdownTask.withLock { task in
            if let task { return task }
            // On one of the pipeline's own threads, the uploader's (it only awaits, and no
            // middleware step can hold it): a released client's teardown must not wait for a free
            // pool thread while its caller goes on making clients on the pool.
            let started = Task.preferring(uploaderExecutor) {
                await self.runShutdown(timeLimit: timeLimit, boundsSteps: boundsSteps)
                finished()
            }
            task = started
            return started
        }
        await task.value
    }

    /// Returns once a shutdown that has started has ended (at once when none has started). For
    /// a `flush()` that overlapped it, whose result must count what shutdown settled.
    func waitForShutdownIfStarted() async {
        await shutdownTask.withLock { $0 }?.value
    }

    /// A client released without `shutdown()`: shuts down with no time for a send (queued events
    /// still pass the steps, however long they take: nobody waits and no time was chosen), then
    /// runs `then`, in a task on the pipeline's own thread, started at once whether or not the
    /// cooperative pool has a free thread.
    func shutDownInBackground(then: @escaping @Sendable () async -> Void) {
        Task.preferring(uploaderExecutor) { [self] in
            await shutDown(timeLimit: .zero, boundsSteps: false)
            await then()
        }
    }

    /// How long a step that is running when shutdown's time limit runs out may take to return
    /// before shutdown goes on without the stages.
    static let stepGrace: Duration = .milliseconds(100)

    private func runShutdown(timeLimit: Duration, boundsSteps: Bool) async {
        intake.shutDown()
        let bounded = hasMiddleware && boundsSteps
        let (ended, elapsed) = await Self.measure(on: clock) {
            if bounded {
                // The steps are the app's code and may take any time: they get the time limit.
                return await Deadline.run(timeLimit, on: self.clock) { await self.stagesEnded.wait() } != nil
            }
            // No step: the stages are the SDK's own quick work, bounded by the backlog.
            await self.stagesEnded.wait()
            return true
        }
        if !ended { await cutSteps() }
        await outboxTask.value
        // The send gets what is left of the limit.
        let sendTime = timeLimit - elapsed
        if cutoff.isCut {
            let dropped = intake.settleAtShutdown()
            if dropped > 0 { problemLog.reportDroppedAtShutdown(dropped, timeLimit: timeLimit) }
            stagesAbandoned.pass()
        }
        // No time at all (a client released without shutdown): no send is started.
        if intake.isEnabled, sendTime > .zero {
            await withTimeLimit(sendTime) { await self.flushOnce() }
        }
        uploaderInputOpen.withLock { open in
            open = false
            uploaderInput?.finish()
        }
        uploaderTask?.cancel()
        await uploaderTask?.value
        ownedTransport?.invalidate()
        await outbox.close()
        sealerChannel.jobs.finish()
        await sealerTask.value
        reports.finish()
        // A thread held by a blocked step exits once the step returns.
        stagesExecutor.stop()
        outboxExecutor.stop()
        uploaderExecutor.stop()
        sealerExecutor.stop()
    }

    /// The time limit ran out with the steps still at work: they get no more events, the step
    /// running now gets ``stepGrace`` to return, and the journal's queue is finished without
    /// the stages if they have not ended by then (a step holds their thread).
    private func cutSteps() async {
        cutoff.cut()
        let ended = await Deadline.run(Self.stepGrace, on: clock) { await self.stagesEnded.wait() } != nil
        if !ended { toOutbox.finish() }
    }

    /// Runs `work` and measures it on `clock` (opened from `any Clock<Duration>`).
    private static func measure<C: Clock, T>(
        on clock: C, _ work: () async -> T
    ) async -> (T, Duration) where C.Duration == Duration {
        let start = clock.now
        let result = await work()
        return (result, start.duration(to: clock.now))
    }

    /// Waits for `barrier` to pass, or for shutdown to give up on the stages (a step blocked
    /// past its time limit, which the barrier may sit behind forever), or for the calling task's
    /// cancellation, whichever comes first.
    func waitForBarrier(_ barrier: Barrier) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await barrier.wait() }
            group.addTask { await self.stagesAbandoned.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Runs `work` until it ends or `limit` passes on the client's clock, whichever is first;
    /// `work` is cancelled when the limit wins.
    func withTimeLimit(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async {
        _ = await Deadline.run(limit, on: clock, work)
    }
}
