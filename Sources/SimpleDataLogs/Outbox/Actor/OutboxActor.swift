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
    /// The outbox folder's layout, or `nil` in memory-only mode (no usable folder).
    let layout: OutboxLayout?
    /// The key and endpoint this client sends to, recorded in its area; only areas recorded for
    /// them (or for no one) are taken and adopted. `nil` when the client cannot send.
    let owner: AreaOwner?

    private let watermarkState = Locked(JournalWatermark())
    /// Threads blocked until a number of events is written (``blockUntilWatermark(atLeast:timeout:)``).
    private let watermarkWaiters = Locked(ThresholdWaiters())

    // The area this client owns.
    var area: AreaLayout?
    var areaLock: AreaLock?

    /// The batch being filled, as a value (its journal file is `journal-<sequence>.log`).
    var open = OpenBatch()
    /// Journals handed to the sealer whose outcomes have not come back (``applySealOutcomes()``).
    var sealing: [SealInFlight] = []
    /// The link to the sealer, which flushes, renames and deletes off this thread; nil in the
    /// outbox's own tests, where those happen here.
    let sealer: SealerChannel?
    var journalDescriptor: Int32 = -1
    /// Whether the journal file holds every record of the open batch so far.
    var journalIsComplete = true
    var sealTimer: Task<Void, Never>?

    /// What is stored: the sealed and set-aside batches and the caps' decisions, as a value.
    var queue = OutboxQueue()
    /// Queues the set-aside batches again after ``setAsideRetryInterval``; one at a time.
    var setAsideRetryTimer: Task<Void, Never>?

    // Events since the last commit, for the watermark and the counters.
    var uncommittedEvents = 0
    /// Their estimated memory, released from the intake's backlog with them.
    var uncommittedCost = 0
    /// Events of the open batch committed while its journal was not whole on disk (a failed
    /// write, or no folder): not under the watermark yet.
    var undurableOpenEvents = 0
    /// Events of the open batch that were under the watermark in a journal whose area was
    /// deleted (``ensureAreaIsOurs()``): in memory only until the journal is rewritten.
    var openEventsOffDisk = 0
    var uncommittedLatestID: UUID?
    /// The outbox's events the counters show as `pendingInMemory` (``updateCounters(_:)``).
    var heldEventsCounted = 0

    /// Whether the outbox runs without its folder for a reason that may pass (it could not be
    /// made or locked, or its area was deleted), so it tries again. Never for a folder it
    /// distrusts, nor with none configured.
    var retriesStorage = false
    /// When the storage folder is tried again while the outbox runs without one.
    var storageRetry = StorageRetrySchedule()
    /// The next try of the storage folder; one at a time, weakly holding the actor.
    var storageRetryTimer: Task<Void, Never>?
    /// Set while an area is being taken, so that the writes of that recovery do not check
    /// (and take) the area again.
    var isTakingStorage = false

    // One log line per episode.
    var diskTroubleLogged = false
    var vanishedFileLogged = false

    /// Whether this launch is the folder's first; read once, at the first `app_launched`.
    var isFirstLaunch: Bool?
    /// Sessions found at launch, ended once the pipeline is running.
    var leftoverSessions: [SessionRules.Session] = []
    /// Tasks waiting for a number of seals (tests, and `flush` once the uploader lands).
    var sealWaiters = ThresholdWaiters()
    /// The ids of `app_crashed` events appended and not yet matched by their record.
    var appendedCrashEventIDs: Set<UUID> = []
    /// Crash records whose events are appended, deleted once those are on disk.
    var crashRecordsAwaitingDisk: [CrashRecordFile] = []

    init(
        directory: String?, fileSystem: any FileSystem, logger: SDKLogger, problemLog: ProblemLog,
        counters: StageCounters, intake: Intake, clock: any Clock<Duration>, faults: FaultInjection,
        policy: SealPolicy, caps: OutboxCaps = OutboxCaps(), autocapture: AutocaptureSettings = AutocaptureSettings(),
        sealer: SealerChannel? = nil, owner: AreaOwner? = nil, executor: ThreadExecutor
    ) {
        self.sealer = sealer
        self.owner = owner
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

    /// What is on disk now; readable from any thread.
    nonisolated var watermark: JournalWatermark { watermarkState.withLock { $0 } }

    /// Blocks the calling thread (never one of the pool's) until at least `target` events have
    /// been written, or `timeout` passes. For tests and crash-test children on their own threads.
    /// - Returns: Whether the watermark got there.
    nonisolated func blockUntilWatermark(atLeast target: Int, timeout: DispatchTime) -> Bool {
        let signal = DispatchSemaphore(value: 0)
        let reached: Bool = watermarkWaiters.withLock { waiters in
            if watermarkState.withLock({ $0.eventsWritten }) >= target { return true }
            waiters.add(thread: signal, for: target)
            return false
        }
        return reached || signal.wait(timeout: timeout) == .success
    }

    /// Tells the uploader every change to the queue of sealed batches it did not cause itself;
    /// set before `run`, nil when the uploader does not run.
    var uploaderInput: HandOffQueue<UploaderInput>?
    /// What the uploader did with batches (``DeliveryOutcome``), drained at each wake-up of
    /// ``run(input:)`` and at each flush (``applyDeliveryOutcomes()``).
    var deliveryOutcomes: HandOffQueue<DeliveryOutcome>?
    /// Whether this operation handed the sealer a journal: it is woken at the operation's end.
    var sealerWakeDue = false
    /// Changes to the queue made by the operation under way, posted together at its end
    /// (``endOperation()``), in order.
    var unpostedChanges: [BatchQueueChange] = []

    /// Ends an operation (a pass over the chunks, a flush's seal, a timer seal, recovery, an
    /// uploader call): wakes the sealer once for the journals this operation sealed, so that
    /// the batches of one pass go as one group and cost one wake-up, not one each; then posts the
    /// operation's queue changes to the uploader, coalescing consecutive joins into one change.
    func endOperation() {
        publishRoom()
        // Whatever moved between memory and disk in this operation, the counters say where.
        if heldInMemoryEvents != heldEventsCounted { updateCounters() }
        if sealerWakeDue {
            sealerWakeDue = false
            sealer?.jobs.wake()
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

    /// Links the uploader: its input (the queue's changes) and its outcomes (drained here).
    func attach(uploader input: HandOffQueue<UploaderInput>, outcomes: HandOffQueue<DeliveryOutcome>) {
        uploaderInput = input
        deliveryOutcomes = outcomes
    }

    /// Recovers the folder, then writes what arrives on `input` until it finishes. The area
    /// stays held afterwards, for the uploader's last send; ``close()`` gives it back.
    ///
    /// Each wake-up takes every chunk waiting, the sealer's outcomes and the uploader's: a wake-up comes for a
    /// new chunk after an idle moment, and for every group the sealer finishes.
    func run(input: HandOffQueue<[PipelineItem]>) async {
        recoverAtLaunch()
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
        for await _ in input.wakeUps {
            while true {
                // The test gate holds the writer before it looks at the queue, so what waits
                // behind a held chunk is seen when the gate opens.
                if let gate { await gate.pass() }
                // Every chunk that arrived during the last pass is written with one `write(2)`
                // per batch (a chunk's own commit only where it holds a barrier or an opt-out).
                // A wake-up with no chunk brings the sealer's outcomes.
                let chunks = input.takeAll()
                for chunk in chunks { handle(chunk) }
                if !chunks.isEmpty { commit() }
                applySealOutcomes()
                _ = applyDeliveryOutcomes()
                discardCrashRecordsOnDisk()
                endOperation()
                if chunks.isEmpty { break }
                // The written events are freed on the sealer's thread (see `SealerJob.discard`).
                sealer?.handQuietly(.discard(chunks))
            }
        }
        sealTimer?.cancel()
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
        sealTimer?.cancel()
        setAsideRetryTimer?.cancel()
        // The last moment the events held in memory can reach the disk for the next launch.
        retryStorage()
        storageRetryTimer?.cancel()
        commit()
        // What the uploader did last (its loop has ended): the delivered files go too.
        _ = applyDeliveryOutcomes()
        finishSeals()
        discardCrashRecordsOnDisk()
        giveUpCrashRecords(discard: false)
        closeJournal()
        releaseArea()
    }

    /// Journals one chunk: its events join the open batch, to be written by the next
    /// ``commit()`` (the run loop's, once per pass, or a seal's).
    func handle(_ chunk: [PipelineItem]) {
        for item in chunk {
            switch item {
            case .event(let event):
                append(event)
            case .optOut:
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
            }
        }
    }

    /// Adds one event to the open batch, sealing before or after it as the policy says.
    func append(_ event: Event) {
        // Each event's bytes are an array of their own: the open batch keeps them (for a rewrite,
        // and the batch sealed from it), so they are written in place, not copied from a scratch.
        let payload: [UInt8]
        if event.origin == .autocaptured, event.name == "app_launched", event.properties["is_first_launch"] == nil {
            // Only the outbox knows its folder's history; the flag is filled in here.
            isFirstLaunch = isFirstLaunch ?? takeFirstLaunchFlag()
            var flagged = event
            flagged.properties["is_first_launch"] = .bool(isFirstLaunch ?? false)
            payload = EventEncoder.encode(flagged)
        } else {
            payload = EventEncoder.encode(event)
        }
        guard SealedBatch.bodyBytes(payloadBytes: payload.count, count: 1) <= policy.maxBodyBytes else {
            problemLog.reportTooLarge(name: event.name, bytes: payload.count)
            counters.update { $0.droppedTooLarge += 1 }
            if let ended = intake.release(1, bytes: event.memoryCost) { problemLog.reportBacklogCleared(ended) }
            return
        }
        if event.origin == .autocaptured, event.name == "app_crashed" { appendedCrashEventIDs.insert(event.id) }
        if open.mustSealBefore(adding: payload.count, policy: policy) { seal() }
        let (isFirst, isFull) = open.append(payload, policy: policy)
        if isFirst { startSealTimer() }
        uncommittedEvents += 1
        uncommittedCost += event.memoryCost
        uncommittedLatestID = event.id
        if isFull { seal() }
    }

    /// Writes the pending records to the journal and moves the watermark and the counters.
    func commit() {
        ensureAreaIsOurs()
        if !open.unwrittenRecords.isEmpty || !journalIsComplete { writeJournal() }
        let rewritten = area != nil && journalIsComplete && (undurableOpenEvents > 0 || openEventsOffDisk > 0)
        guard uncommittedEvents > 0 else {
            // A rewrite with no new event (a folder taken late) puts the held ones on disk.
            if rewritten {
                let count = undurableOpenEvents
                undurableOpenEvents = 0
                openEventsOffDisk = 0
                updateCounters()
                advanceWatermark(by: count, latest: nil)
            }
            return
        }
        let count = uncommittedEvents
        let cost = uncommittedCost
        uncommittedEvents = 0
        uncommittedCost = 0
        // The watermark promises survival of `kill -9`: it moves only for records the journal
        // file really holds. Events whose write failed (or with no folder at all) wait in
        // `undurableOpenEvents` until a rewrite puts the whole open batch on disk, or the batch
        // they end up in becomes a file.
        if area != nil && journalIsComplete {
            advanceWatermark(by: count + undurableOpenEvents, latest: uncommittedLatestID)
            undurableOpenEvents = 0
            openEventsOffDisk = 0
        } else {
            undurableOpenEvents += count
        }
        // Counted where they are: in a journal file, or held in memory.
        updateCounters { $0.pendingOnDisk += count }
        publishRoom()
        if let ended = intake.release(count, bytes: cost) { problemLog.reportBacklogCleared(ended) }
    }

    /// Counts `count` more events as written (surviving `kill -9`) and wakes whoever waits for that.
    func advanceWatermark(by count: Int, latest: UUID?) {
        guard count > 0 else { return }
        let written: Int = watermarkState.withLock { watermark in
            watermark.eventsWritten += count
            if let latest { watermark.latestEventID = latest }
            return watermark.eventsWritten
        }
        watermarkWaiters.withLock { $0.takeReached(written) }.resume()
    }

    /// Logs the first disk failure of an episode; later ones are counted by the episode.
    func reportDiskTrouble(_ error: FileSystemError, doing what: String) {
        guard !diskTroubleLogged else { return }
        diskTroubleLogged = true
        let when = area == nil ? "the folder is tried again (within a minute, and at every flush and at shutdown)" : "written when the disk allows"
        logger.error("The outbox could not \(what) (\(error)). Events are kept in memory, within the caps, and \(when).")
    }

    /// Called after a disk operation succeeds: ends a trouble episode with one line.
    func diskRecovered() {
        // A folder taken late says so itself, with what it wrote (``retryStorage()``).
        guard diskTroubleLogged, !isTakingStorage else { return }
        diskTroubleLogged = false
        logger.info("The outbox can write again; events held in memory are on disk now.")
    }

    /// Returns once at least `count` batches have been sealed since launch.
    func waitUntilSealed(atLeast count: Int) async {
        guard queue.sealsSinceLaunch < count else { return }
        await withCheckedContinuation { sealWaiters.add(task: $0, for: count) }
    }

    /// The sealed batches, oldest first: what tests look at (the uploader learns them from its
    /// ``UploaderInput``).
    var sealedBatches: [StoredBatch] { Array(queue.sealed) }

    /// Kills the process at `point` when a crash test asked for it.
    func crashIfRequested(_ point: SealCrashPoint) {
        if crashPoint == point { kill(getpid(), SIGKILL) }
    }

}
