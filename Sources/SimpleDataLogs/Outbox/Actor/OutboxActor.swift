#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Owns the outbox folder: appends every event to the journal as it arrives, seals batches,
/// recovers what an earlier run left, enforces the caps, and deletes on opt-out.
///
/// Runs on a thread of its own (``ThreadExecutor``), so its blocking file calls never hold a
/// thread of the cooperative pool. Its files and their protocols are in DESIGN.md ("The outbox").
actor OutboxActor {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let fileSystem: any FileSystem
    let logger: SDKLogger
    let problemLog: ProblemLog
    let counters: StageCounters
    let intake: Intake
    let clock: any Clock<Duration>
    let gate: WriterGate?
    let crashPoint: SealCrashPoint?
    let policy: SealPolicy
    let caps: OutboxCaps
    let autocapture: AutocaptureSettings
    /// The app's steps, for the events the outbox makes itself: the `session_end` of a session
    /// an earlier run left open (``endLeftoverSessions(_:)``).
    let middleware: MiddlewareChain
    /// Where the reports of what the uploader did are published, once this actor has applied it
    /// (``DeliveryOutcome/announce(_:)``); nil in the outbox's own tests.
    let reports: DeliveryReportHub?
    /// The outbox folder's layout, or `nil` in memory-only mode (no usable folder).
    let layout: OutboxLayout?
    /// The key and endpoint this client sends to, recorded in its area; only areas recorded for
    /// them, for a key it replaced (``formerOwners``) or for no one are taken and adopted. `nil`
    /// when the client cannot send. Changed only by a key rotation (``rotateOwner(to:)``).
    var owner: AreaOwner?
    /// The destinations of the keys this client replaced: `previousIngestKeys` at launch, then
    /// each key `rotateIngestKey(to:)` retired. Their areas and quarantined files are this
    /// client's to send, with the current key.
    var formerOwners: [AreaOwner]

    /// What is on disk now (OutboxActor+Watermark.swift).
    let watermarkState = Locked(JournalWatermark())
    /// Threads blocked until a number of events is written (``blockUntilWatermark(atLeast:timeout:)``).
    let watermarkWaiters = Locked(Waiters())

    // The area this client owns.
    var area: AreaLayout?
    var areaLock: AreaLock?

    /// The link to the sealer, which flushes, renames and deletes off this thread.
    let sealer: SealerChannel
    /// Everything that reaches the outbox's loop: chunks, the sealer's outcomes, timer firings.
    nonisolated let input: HandOffQueue<OutboxInput>
    var journalDescriptor: Int32 = -1
    /// Seals a partial batch `policy.maxAge` after its first event.
    let sealTimer: MessageTimer<OutboxInput>

    /// What is stored: the sealed and set-aside batches and the caps' decisions, as a value.
    var queue = OutboxQueue()
    /// Queues the set-aside batches again after ``setAsideRetryInterval``; one at a time.
    let setAsideRetryTimer: MessageTimer<OutboxInput>

    /// Everything the outbox decides by rule, as one value (``OutboxState``): the open batch,
    /// the group commit and watermark, the seals in flight, the storage retry, the disk-trouble
    /// episodes, the crash records.
    var state = OutboxState()

    /// The next try of the storage folder; one at a time.
    let storageRetryTimer: MessageTimer<OutboxInput>
    /// One log line per episode of vanished batch files.
    var vanishedFileLogged = false
    /// Sessions found at launch, ended once the pipeline is running.
    var leftoverSessions: [SessionRules.Session] = []
    /// Tasks waiting for a number of seals (tests).
    var sealWaiters = Waiters()

    // The intake log (issue 25; OutboxActor+IntakeLog.swift).
    /// This run's log, which `configure` made (the intake holds the file itself); nil without.
    var intakeLogPath: String?
    /// This run's crash record, set by `configure` once the recorder is installed (shared with
    /// the client); renamed for a rotated key (``rotateOwner(to:)``).
    let crashRecordPath: Locked<String?>
    /// The newest log record the stages have handled (``PipelineItem/logPosition(_:)``).
    var intakeLogPosition: UInt64 = 0
    /// The last record of the replay written into this run's log.
    var replayThrough: UInt64 = 0
    /// The ids of the events in the journals recovered at launch, and in the newest batch files
    /// (``replayedEvents`` of them): replayed copies are dropped.
    var replayedJournalIDs: Set<UUID> = []
    /// Launch queued replayed events (until then the ids above are kept).
    var replayPending = false
    /// How many events launch replayed from intake logs (0: none).
    var replayedEvents = 0
    /// An opt-out was handled: the log's released events are zeroed at the next release.
    var wipesIntakeLog = false
    /// The logs of the areas adopted at launch, replayed after this area's.
    var adoptedIntakeLogs: [String] = []
    /// Earlier runs' logs whose replay did not fit in this run's log: deleted once the journal
    /// holds the replay.
    var replayedLogsToRemove: [String] = []
    /// The locked descriptors of the ended runs' logs taken at launch (``IntakeLogFiles``), by
    /// path: each lock is given back once its file is deleted.
    var takenIntakeLogs: [String: Int32] = [:]

    // The completeness receipts (OutboxActor+Receipts.swift).
    let receipts: ReceiptSettings
    let receiptCrashPoint: ReceiptCrashPoint?
    /// Makes the next receipt a period after the last one.
    let receiptTimer: MessageTimer<OutboxInput>
    /// The ledger and what goes with it between two stores (``ReceiptKeeping``).
    var keeping: ReceiptKeeping

    init(
        directory: String?, fileSystem: any FileSystem, logger: SDKLogger, problemLog: ProblemLog,
        counters: StageCounters, intake: Intake, clock: any Clock<Duration>, faults: FaultInjection,
        policy: SealPolicy, caps: OutboxCaps = OutboxCaps(), autocapture: AutocaptureSettings = AutocaptureSettings(),
        input: HandOffQueue<OutboxInput>, sealer: SealerChannel, owner: AreaOwner? = nil, formerOwners: [AreaOwner] = [],
        middleware: MiddlewareChain = MiddlewareChain(steps: []), reports: DeliveryReportHub? = nil, intakeLogPath: String? = nil,
        crashRecordPath: Locked<String?> = Locked(nil), receipts: ReceiptSettings = .off, executor: ThreadExecutor
    ) {
        self.crashRecordPath = crashRecordPath
        self.receipts = receipts
        receiptCrashPoint = faults.receiptCrashPoint
        keeping = ReceiptKeeping(ledger: ReceiptLedger(id: UniqueID.random(), now: receipts.wallClock.nowMilliseconds))
        self.intakeLogPath = directory == nil ? nil : intakeLogPath
        self.sealer = sealer
        self.middleware = middleware
        self.reports = reports
        self.input = input
        let post: @Sendable (OutboxInput) -> Void = { input.push($0) }
        sealTimer = MessageTimer(clock: clock, post: post)
        setAsideRetryTimer = MessageTimer(clock: clock, post: post)
        storageRetryTimer = MessageTimer(clock: clock, post: post)
        receiptTimer = MessageTimer(clock: clock, post: post)
        self.owner = owner
        self.formerOwners = formerOwners
        self.autocapture = autocapture
        layout = directory.map(OutboxLayout.init(root:))
        // Confined to the folder here too, for the outbox's own tests that build it directly.
        self.fileSystem = directory.map { fileSystem.confined(to: $0) } ?? fileSystem
        self.logger = logger
        self.problemLog = problemLog
        self.counters = counters
        self.intake = intake
        self.clock = clock
        gate = faults.writerGate
        crashPoint = faults.crashPoint
        self.policy = policy
        self.caps = caps
        self.executor = executor
    }

    /// Tells the uploader every change to the queue of sealed batches it did not cause itself;
    /// set before `run`, nil when the uploader does not run.
    var uploaderInput: HandOffQueue<UploaderInput>?
    /// Changes to the queue made by the operation under way, posted together at its end
    /// (``endOperation()``), in order.
    var unpostedChanges: [BatchQueueChange] = []

    /// Ends an operation (a pass over the chunks, a flush's seal, a timer seal, recovery, an
    /// uploader call): wakes the sealer once for the journals this operation sealed, so that
    /// the batches of one pass go as one group and cost one wake-up, not one each; then posts the
    /// operation's queue changes to the uploader, coalescing consecutive joins into one change.
    func endOperation() {
        // Before any deletion this operation asked for: the ledger names what it settles.
        storeLedgerIfNeeded()
        publishRoom()
        // Whatever moved between memory and disk in this operation, the counters say where.
        if heldInMemoryEvents != state.heldEventsCounted { updateCounters() }
        if state.sealerWakeDue {
            state.sealerWakeDue = false
            sealer.jobs.wake()
        }
        guard !unpostedChanges.isEmpty else { return }
        // The joins of a run are gathered in one array, appended to in place: rebuilding the
        // change at every join copied the run each time, quadratic in the batches a launch
        // recovers (issue 23).
        var changes: [BatchQueueChange] = []
        var joined: [StoredBatch] = []
        for change in unpostedChanges {
            switch change {
            case .joined(let batches):
                joined.append(contentsOf: batches)
            case .left:
                if !joined.isEmpty { changes.append(.joined(joined)) }
                joined = []
                changes.append(change)
            }
        }
        if !joined.isEmpty { changes.append(.joined(joined)) }
        unpostedChanges.removeAll()
        uploaderInput?.push(.queue(changes, batchesFolder: area?.batchesFolder))
    }

    /// Links the uploader's input: the queue's changes go there. Its outcomes come back as
    /// ``OutboxInput/delivery(_:)`` messages in this actor's own input.
    func attach(uploader input: HandOffQueue<UploaderInput>) {
        uploaderInput = input
    }

    /// Recovers the folder, then handles what arrives on ``input`` until it finishes. The area
    /// stays held afterwards, for the uploader's last send; ``close()`` gives it back.
    ///
    /// Each step of the loop takes every message waiting (chunks, the sealer's outcomes, timer
    /// firings) and handles them as one pass (``handle(_:)-([OutboxInput])``).
    func run() async {
        recoverAtLaunch()
        // No log was made (no folder, a distrusted one, none to be had): the intake stops
        // holding what it took meanwhile.
        if intake.isAwaitingLog { intake.releaseHeld() }
        endLeftoverSessions(leftoverSessions)
        leftoverSessions = []
        commit()
        // Refused batches get another try at every launch: the edge that refused them may have
        // been fixed since (a bad deploy answering 400 for an afternoon).
        if intake.isEnabled, !queue.setAside.isEmpty {
            let moved = requeueSetAside()
            if moved > 0 { logger.info("Queued \(moved) set-aside batch(es) again at launch.") }
        }
        // Leftovers reach the uploader through the feed; it sends nothing while collection is
        // off, so an opted-out launch sends not a byte.
        endOperation()
        for await messages in input {
            // The test gate holds the writer before it handles what it took; what arrived during
            // the hold joins this pass, as it would have if the gate had held the look itself.
            if let gate {
                await gate.pass()
                handle(messages + input.takeAll())
            } else {
                handle(messages)
            }
        }
        sealTimer.cancel()
        receiptTimer.cancel()
        // A server's receipt at shutdown: journaled here, so shutdown's last send takes it.
        if receipts.atShutdown { makeReceipt(reason: "at shutdown") }
        commit()
        finishSeals()
        endOperation()
    }

    /// Seals the open batch now (for `flush` and `shutdown`).
    func sealOpenBatch() {
        // A flush is also a moment to try a folder that was not there (DESIGN.md, "Disk faults").
        retryStorage()
        commit()
        seal()
        finishSeals()
        endOperation()
    }

    /// Closes the journal and gives the area back; the next process (or a sibling) adopts
    /// what is left.
    func close() {
        defer { endOperation() }
        sealTimer.cancel()
        setAsideRetryTimer.cancel()
        receiptTimer.cancel()
        // The last moment the events held in memory can reach the disk for the next launch.
        retryStorage()
        storageRetryTimer.cancel()
        commit()
        // What the uploader did last (its loop has ended): the delivered files go too.
        _ = applyDeliveryOutcomes(takeWaiting(\.deliveryOutcomes))
        finishSeals()
        discardCrashRecordsOnDisk()
        giveUpCrashRecords(discard: false)
        closeJournal()
        // Unmapped. A log the journal holds all of goes (a clean shutdown leaves no 4 MiB file
        // behind); else it stays, released up to what the journal holds, and so do the ended
        // runs' logs not yet deleted: their locks go back, for the next launch to take them.
        if intake.closeLog(), let intakeLogPath { try? fileSystem.remove(intakeLogPath) }
        for descriptor in takenIntakeLogs.values { fileSystem.close(descriptor) }
        takenIntakeLogs = [:]
        releaseArea()
    }

    /// One pass of the loop: every chunk's events join the open batch and are written with one
    /// `write(2)` per batch (a chunk's own commit only where it holds a barrier or an opt-out);
    /// then the sealer's outcomes queue the batches it made durable, the uploader's outcomes
    /// delete or move what it answered for, and the timers that fired act. The operation ends once, for the whole pass (``endOperation()``).
    func handle(_ messages: [OutboxInput]) {
        var chunks: [[PipelineItem]] = []
        var timers: [(OutboxTimerKind, Int)] = []
        var delivery: [DeliveryOutcome] = []
        // The sealer's outcomes taken here first: they are older than any a chunk's
        // back-pressure or barrier takes out of the input meanwhile, and applied after those
        // the caps would see these journals as still with the sealer and evict newer batches
        // instead of them (seen under ThreadSanitizer: batches 0–99 kept, 350–399 evicted).
        let outcomes = messages.flatMap { $0.sealOutcomes ?? [] }
        if !outcomes.isEmpty { applySealOutcomes(outcomes) }
        for message in messages {
            switch message {
            case .chunk(let chunk):
                handle(chunk)
                chunks.append(chunk)
            case .sealed:
                break // applied above
            case .timer(let kind, let generation):
                timers.append((kind, generation))
            case .delivery(let done):
                delivery += done
            }
        }
        if !chunks.isEmpty { commit() }
        // The caps once more, over what this pass wrote.
        enforceCaps()
        // After the seal outcomes: a batch the uploader answered for was queued by one of them.
        _ = applyDeliveryOutcomes(delivery)
        for (kind, generation) in timers { timerFired(kind, generation: generation) }
        discardCrashRecordsOnDisk()
        endOperation()
        // The written events are freed on the sealer's thread (see `SealerJob.discard`).
        if !chunks.isEmpty { sealer.handQuietly(.discard(chunks)) }
    }

    /// A timer's firing, if it is still the current one (not replaced or cancelled since).
    private func timerFired(_ kind: OutboxTimerKind, generation: Int) {
        switch kind {
        case .seal:
            guard sealTimer.fired(generation) else { return }
            sealTimerFired()
        case .setAsideRetry:
            guard setAsideRetryTimer.fired(generation) else { return }
            setAsideRetryFired()
        case .storageRetry:
            guard storageRetryTimer.fired(generation) else { return }
            retryStorage()
        case .receipt:
            guard receiptTimer.fired(generation) else { return }
            receiptTimerFired()
        }
    }

    /// Journals one chunk: its events join the open batch, to be written by the next
    /// ``commit()`` (the run loop's, once per pass, or a seal's).
    func handle(_ chunk: [PipelineItem]) {
        for item in chunk {
            switch item {
            case .event(let event):
                if isReplayedCopy(event) {
                    counters.update { $0.recovered -= 1 }
                    if let ended = intake.release(1, bytes: event.memoryCost) { problemLog.reportBacklogCleared(ended) }
                    continue
                }
                append(event)
            case .optOut:
                wipesIntakeLog = true
                commit()
                finishSeals()
                deleteEverything()
            case .barrier(let barrier):
                commit()
                finishSeals()
                barrier.pass()
            case .sessionCheckpoint(let sessions):
                keep(sessions)
            case .crashRecordHandedOver(let record):
                takeOver(record)
            case .activity, .identityReset:
                break // consumed by the sessions stage
            case .logPosition(let sequence):
                intakeLogPosition = max(intakeLogPosition, sequence)
            case .rotateKey(let rotation):
                rotateOwner(to: rotation)
            }
        }
    }

    /// Kills the process at `point` when a crash test asked for it.
    func crashIfRequested(_ point: SealCrashPoint) {
        if crashPoint == point { kill(getpid(), SIGKILL) }
    }

}
