/// The running stages of one configured client, wired together, and the three tasks that own
/// them: one for the stage loops, one for the sealer's loop, one for the uploader's loop.
///
/// ```
/// track() ──▶ Intake ──wake-ups──▶ IdentityActor ──[PipelineItem]──▶ SessionsActor ──HandOffQueue──▶ OutboxActor ──BatchFeed──▶ Uploader
///             (lock)  AsyncStream<Void>             AsyncStream                      (lock + wake-ups)  (own thread)  (lock + signals)  (own thread)
///                                                                                                        │ ▲ jobs / outcomes
///                                                                                                        ▼ │
///                                                                                                    SealerActor (own thread)
/// ```
///
/// The chunk hand-overs are unbounded on purpose: the intake admits at most its backlog of events
/// not yet written, so nothing downstream can grow past that, and a bounded one would have to
/// drop (losing events) or block; what waits for the sealer is bounded by the outbox
/// (`OutboxActor.maxBytesBeingSealed`).
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
    /// Where the uploader's loop listens; `nil` when uploads are off (outbox unit tests).
    private let uploaderSignals: AsyncStream<UploaderSignal>.Continuation?
    /// Owns the three stage loops; ends when the intake shuts down and every stage has drained.
    private let stagesTask: Task<Void, Never>
    /// Owns the uploader's loop; ends when its signals finish, or at once when cancelled.
    private let uploaderTask: Task<Void, Never>?
    private let ownedTransport: URLSessionTransport?
    /// The one shutdown, started by the first caller and awaited by every caller.
    private let shutdownTask = Locked<Task<Void, Never>?>(nil)

    init(
        intake: Intake, counters: StageCounters, logger: SDKLogger, directory: String?,
        clock: any Clock<Duration>, wallClock: any WallClock, policy: SealPolicy, caps: OutboxCaps = OutboxCaps(),
        uploader settings: UploaderSettings, autocapture: AutocaptureSettings, middleware: [EventMiddleware] = [],
        usesInstallID: Bool = false, tuning: ClientTuning, faults: FaultInjection
    ) {
        self.intake = intake
        self.clock = clock
        ownedTransport = settings.ownedTransport
        let problemLog = ProblemLog(logger: logger)
        stagesExecutor = ThreadExecutor(name: "sdl.stages")
        outboxExecutor = ThreadExecutor(name: "sdl.outbox")
        uploaderExecutor = ThreadExecutor(name: "sdl.uploader")
        sealerExecutor = ThreadExecutor(name: "sdl.sealer")
        let reports = DeliveryReportHub()
        self.reports = reports
        let identity = IdentityActor(
            intake: intake, counters: counters, problemLog: problemLog, middleware: MiddlewareChain(steps: middleware),
            installIDs: usesInstallID ? InstallIDStore(folder: directory, fileSystem: faults.fileSystem) : nil, logger: logger,
            executor: stagesExecutor
        )
        let sessions = SessionsActor(
            sessionMode: autocapture.capture.contains(.sessions) ? autocapture.sessionMode : nil,
            tracksActivity: autocapture.activity == .on, intake: intake, executor: stagesExecutor
        )
        let toOutbox = HandOffQueue<[PipelineItem]>()
        let sealerChannel = SealerChannel { toOutbox.wake() }
        self.sealerChannel = sealerChannel
        let sealer = SealerActor(fileSystem: faults.fileSystem, crashPoint: faults.crashPoint, executor: sealerExecutor)
        sealerTask = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask(preferring: sealer.executor) { await sealer.run(sealerChannel) }
            }
        }
        // A tuned seal policy or caps replaces what the configuration made.
        let outbox = OutboxActor(
            directory: directory, fileSystem: faults.fileSystem, logger: logger, problemLog: problemLog,
            counters: counters, intake: intake, clock: clock, faults: faults,
            policy: tuning.sealPolicy ?? policy, caps: tuning.caps ?? caps,
            autocapture: autocapture, sealer: sealerChannel,
            owner: settings.owner, executor: outboxExecutor
        )
        self.identity = identity
        self.sessions = sessions
        self.outbox = outbox
        let (toSessions, toSessionsInput) = AsyncStream.makeStream(of: [PipelineItem].self, bufferingPolicy: .unbounded)

        let feed: BatchFeed?
        if tuning.startsUploader {
            // Unbounded: signals are few (one per seal, timer or flush) and must not be lost.
            let (signals, signalInput) = AsyncStream.makeStream(of: UploaderSignal.self, bufferingPolicy: .unbounded)
            uploaderSignals = signalInput
            let batchFeed = BatchFeed { signalInput.yield(.batchesAvailable) }
            feed = batchFeed
            let uploader = Self.makeUploader(
                clock: clock, wallClock: wallClock, outbox: outbox, settings: settings, logger: logger,
                reports: reports, counters: counters, intake: intake, signals: signalInput, feed: batchFeed, executor: uploaderExecutor
            )
            let executor = uploaderExecutor
            uploaderTask = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask(preferring: executor) { await uploader(signals) }
                }
            }
        } else {
            uploaderSignals = nil
            feed = nil
            uploaderTask = nil
        }
        stagesTask = Task {
            if let feed { await outbox.attach(feed: feed) }
            await withTaskGroup(of: Void.self) { group in
                // Each loop prefers its actor's thread, so that it is woken there, not on the pool.
                group.addTask(preferring: identity.executor) { await identity.run(output: toSessionsInput) }
                group.addTask(preferring: sessions.executor) { await sessions.run(input: toSessions, output: toOutbox) }
                group.addTask(preferring: outbox.executor) { await outbox.run(input: toOutbox) }
            }
        }
    }

    /// Opens the clock's concrete type, so the uploader works with the clock's own instants.
    private static func makeUploader<C: Clock>(
        clock: C, wallClock: any WallClock, outbox: OutboxActor, settings: UploaderSettings, logger: SDKLogger,
        reports: DeliveryReportHub, counters: StageCounters, intake: Intake, signals: AsyncStream<UploaderSignal>.Continuation,
        feed: BatchFeed, executor: ThreadExecutor
    ) -> @Sendable (AsyncStream<UploaderSignal>) async -> Void where C.Duration == Duration {
        let uploader = Uploader(
            clock: clock, wallClock: wallClock, outbox: outbox, settings: settings, logger: logger,
            reports: reports, counters: counters, intake: intake, signals: signals, feed: feed, executor: executor
        )
        return { input in await uploader.run(input) }
    }

    /// Wakes the uploader for a pass over the queue (back online).
    func wakeUploader() {
        uploaderSignals?.yield(.batchesAvailable)
    }

    /// Seals the open batch and has the uploader try every queued batch once; returns when that
    /// attempt ends, or at once when the calling task is cancelled (the attempt goes on).
    /// - Parameter lastChance: Whether what is left is deleted afterwards (`flushAndDisable`):
    ///   the try is made during a 401 pause too.
    func flushOnce(lastChance: Bool = false) async {
        await outbox.sealOpenBatch()
        guard let uploaderSignals else { return }
        let done = Barrier()
        // After shutdown the uploader's loop is gone: nothing would pass the barrier.
        if case .terminated = uploaderSignals.yield(.flush(done, lastChance: lastChance)) { return }
        await done.wait()
        // The delivered batches' files are deleted by the sealer: flush returns once they are.
        if !Task.isCancelled { await sealerChannel.caughtUp() }
    }

    /// Stops the intake, lets every stage finish what it holds, tries one send within
    /// `timeLimit` (on the client's clock), keeps the rest on disk, and stops the threads.
    ///
    /// The work runs in a task of its own, not the caller's: a shutdown asked for by a cancelled
    /// task (a server's service being torn down, a `withClient` scope left by cancellation) still
    /// makes its one bounded send, and only `timeLimit` cuts it short. Concurrent and later calls
    /// wait for the same shutdown instead of running a second one.
    /// - Parameters:
    ///   - timeLimit: How long the last send may take.
    ///   - finished: Runs once, when the first caller's shutdown has ended (the closing log line).
    func shutDown(timeLimit: Duration, finished: @escaping @Sendable () -> Void = {}) async {
        let task: Task<Void, Never> = shutdownTask.withLock { task in
            if let task { return task }
            let started = Task {
                await self.runShutdown(timeLimit: timeLimit)
                finished()
            }
            task = started
            return started
        }
        await task.value
    }

    private func runShutdown(timeLimit: Duration) async {
        intake.shutDown()
        await stagesTask.value
        // No time at all (a client released without shutdown): no send is started.
        if intake.isEnabled, timeLimit > .zero {
            await withTimeLimit(timeLimit) { await self.flushOnce() }
        }
        uploaderSignals?.finish()
        uploaderTask?.cancel()
        await uploaderTask?.value
        ownedTransport?.invalidate()
        await outbox.close()
        sealerChannel.jobs.finish()
        await sealerTask.value
        reports.finish()
        stagesExecutor.stop()
        outboxExecutor.stop()
        uploaderExecutor.stop()
        sealerExecutor.stop()
    }

    /// Runs `work` until it ends or `limit` passes on the client's clock, whichever is first;
    /// `work` is cancelled when the limit wins.
    func withTimeLimit(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async {
        _ = await Deadline.run(limit, on: clock, work)
    }
}
