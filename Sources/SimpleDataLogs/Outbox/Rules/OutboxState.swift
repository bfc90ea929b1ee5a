import Foundation

/// The outbox's group commit, watermark and crash-record rules, as a value: ``OutboxActor``
/// feeds it what happened (an event appended, a commit's write, a crash record handed over)
/// and carries out the effects it returns (move the watermark, count, release the intake's
/// backlog, delete or keep a crash record). Tested without a thread or a file
/// (`OutboxStateTests`).
///
/// The rule it keeps: the watermark promises survival of `kill -9`, so it moves only for
/// records a whole journal file in an area holds. Events committed while the journal is not
/// whole (a failed write, no folder) wait in ``undurableOpenEvents`` until a rewrite puts the
/// whole open batch on disk, or the batch they end up in becomes a file.
struct OutboxState: Sendable {
    /// The batch being filled (its journal file is `journal-<sequence>.log`).
    var open = OpenBatch()
    /// Whether the journal file holds every record of the open batch so far.
    var journalIsComplete = true
    /// Whether the outbox runs without its folder for a reason that may pass (it could not be
    /// made or locked, or its area was deleted), so it tries again. Never for a folder it
    /// distrusts, nor with none configured.
    var retriesStorage = false
    /// When the storage folder is tried again while the outbox runs without one.
    var storageRetry = StorageRetrySchedule()
    /// Set while an area is being taken, so that the writes of that recovery do not check
    /// (and take) the area again.
    var isTakingStorage = false
    /// Whether the current disk-trouble episode has had its log line (one line per episode).
    var diskTroubleLogged = false
    /// Whether this launch is the folder's first; read once, at the first `app_launched`.
    var isFirstLaunch: Bool?
    /// Whether the operation under way handed the sealer a journal: it is woken at the
    /// operation's end, once for all of them.
    var sealerWakeDue = false
    /// Events appended since the last commit.
    private(set) var uncommittedEvents = 0
    /// Their estimated memory, released from the intake's backlog with them.
    private(set) var uncommittedCost = 0
    /// The newest of them, for the watermark's `latestEventID`.
    private(set) var uncommittedLatestID: UUID?
    /// Events of the open batch committed while its journal was not whole on disk: not under
    /// the watermark yet.
    var undurableOpenEvents = 0
    /// Events of the open batch that were under the watermark in a journal whose area was
    /// deleted: in memory only until the journal is rewritten.
    var openEventsOffDisk = 0
    /// The ids of `app_crashed` events appended and not yet matched by their record.
    private(set) var appendedCrashEventIDs: Set<UUID> = []
    /// Crash records whose events are appended, deleted once those are on disk.
    private(set) var crashRecordsAwaitingDisk: [CrashRecordFile] = []
    /// Journals handed to the sealer whose outcomes have not come back, oldest first.
    private(set) var sealing: [SealInFlight] = []
    /// Their event bytes: what the journal thread holds for the sealer (``maxBytesBeingSealed``).
    private(set) var bytesBeingSealed = 0
    /// The outbox's events the counters show as `pendingInMemory` (``recount(heldInMemory:)``).
    private(set) var heldEventsCounted = 0

    /// The most event bytes held for journals with the sealer before the journal thread waits
    /// for it (4 MiB: 80 batches of 50 typical events, 20 of 1,000). The batches with the
    /// sealer keep their events in memory (for a rewrite if their seal fails): when the disk
    /// flushes slower than the journal writes, the journal waits for it rather than holding
    /// ever more.
    static let maxBytesBeingSealed = 4 << 20

    /// What a commit asks of the actor, in this order.
    enum CommitEffect: Sendable, Equatable {
        /// `count` more events survive `kill -9`; `latest` is the newest (nil: unchanged).
        case advanceWatermark(by: Int, latest: UUID?)
        /// `count` events were written: counted as pending on disk (or held, where they are),
        /// and the outbox's room published before they leave the backlog.
        case countWritten(Int)
        /// Where the held events are changed with no new event (a rewrite): recount.
        case recount
        /// Release `events` events of `bytes` from the intake's backlog.
        case releaseBacklog(events: Int, bytes: Int)
    }

    /// Whether an event of `payloadBytes` may join the open batch.
    enum Admission: Sendable, Equatable {
        /// It fits no batch (its body alone passes the policy's limit): dropped, counted, logged.
        case tooLarge
        /// It would push the open batch's body past the limit: the batch is sealed first.
        case sealFirst
        /// It joins the open batch as it is.
        case joins
    }

    /// The size rule for an event about to join the open batch.
    func admission(payloadBytes: Int, policy: SealPolicy) -> Admission {
        guard SealedBatch.bodyBytes(payloadBytes: payloadBytes, count: 1) <= policy.maxBodyBytes else { return .tooLarge }
        return open.mustSealBefore(adding: payloadBytes, policy: policy) ? .sealFirst : .joins
    }

    /// An event's encoded `payload` joins the open batch (after ``admission(payloadBytes:policy:)``).
    /// - Returns: Whether it is the batch's first (the seal timer starts) and whether the batch
    ///   is full now (it is sealed at once).
    mutating func append(
        _ payload: [UInt8], id: UUID, cost: Int, isCrash: Bool, policy: SealPolicy
    ) -> (startsSealTimer: Bool, sealsAfter: Bool) {
        let (isFirst, isFull) = open.append(payload, policy: policy)
        appended(id: id, cost: cost, isCrash: isCrash)
        return (isFirst, isFull)
    }

    /// An event joined the open batch.
    mutating func appended(id: UUID, cost: Int, isCrash: Bool) {
        uncommittedEvents += 1
        uncommittedCost += cost
        uncommittedLatestID = id
        if isCrash { appendedCrashEventIDs.insert(id) }
    }

    /// The group commit: the pending records were written, once, for every event appended since
    /// the last commit. `durable`: an area is held and the journal file holds every record of
    /// the open batch.
    mutating func commit(durable: Bool) -> [CommitEffect] {
        let rewritten = durable && (undurableOpenEvents > 0 || openEventsOffDisk > 0)
        guard uncommittedEvents > 0 else {
            // A rewrite with no new event (a folder taken late) puts the held ones on disk.
            guard rewritten else { return [] }
            let count = undurableOpenEvents
            undurableOpenEvents = 0
            openEventsOffDisk = 0
            return [.recount] + (count > 0 ? [.advanceWatermark(by: count, latest: nil)] : [])
        }
        let (count, cost, latest) = (uncommittedEvents, uncommittedCost, uncommittedLatestID)
        uncommittedEvents = 0
        uncommittedCost = 0
        var effects: [CommitEffect] = []
        if durable {
            effects.append(.advanceWatermark(by: count + undurableOpenEvents, latest: latest))
            undurableOpenEvents = 0
            openEventsOffDisk = 0
        } else {
            undurableOpenEvents += count
        }
        effects.append(.countWritten(count))
        effects.append(.releaseBacklog(events: count, bytes: cost))
        return effects
    }

    // MARK: Disk-trouble episodes

    /// A disk call failed.
    /// - Returns: Whether it begins an episode: its one error line is logged.
    mutating func diskTroubleBegins() -> Bool {
        defer { diskTroubleLogged = true }
        return !diskTroubleLogged
    }

    /// A disk call succeeded.
    /// - Returns: Whether it ends an episode: its one recovery line is logged. Not while a folder
    ///   is being taken late: that says so itself, with what it wrote.
    mutating func diskTroubleEnds() -> Bool {
        guard diskTroubleLogged, !isTakingStorage else { return false }
        diskTroubleLogged = false
        return true
    }

    /// The open batch's events leave it (sealed into a batch): the undurable ones go with the
    /// batch, to be counted under the watermark once its file is written.
    /// - Returns: How many of them were not under the watermark.
    mutating func sealedOpenBatch() -> Int {
        openEventsOffDisk = 0
        defer { undurableOpenEvents = 0 }
        return undurableOpenEvents
    }

    /// The area the open journal was in is gone: what was under the watermark of the open batch
    /// is in memory only now.
    mutating func lostOpenJournal(openEvents: Int) {
        openEventsOffDisk = openEvents - uncommittedEvents - undurableOpenEvents
    }

    /// The opt-out deleted the open batch.
    mutating func forgetOpenBatch() {
        undurableOpenEvents = 0
        openEventsOffDisk = 0
    }

    /// Events held in memory in the open batch (not counted as on disk).
    var openEventsInMemory: Int { undurableOpenEvents + openEventsOffDisk }

    /// The counters' view of the events held in memory moves to `heldInMemory`.
    /// - Returns: How many moved from disk to memory (negative: the other way).
    mutating func recount(heldInMemory: Int) -> Int {
        defer { heldEventsCounted = heldInMemory }
        return heldInMemory - heldEventsCounted
    }

    // MARK: Seals in flight

    /// A full journal went to the sealer.
    /// - Returns: Whether the journal thread must now wait for the sealer (back-pressure:
    ///   more than ``maxBytesBeingSealed`` held for it).
    mutating func handedToSealer(_ seal: SealInFlight) -> Bool {
        sealing.append(seal)
        bytesBeingSealed += seal.payloadBytes
        return bytesBeingSealed > Self.maxBytesBeingSealed
    }

    /// The sealer's `outcomes`, matched to the journals handed to it, in the outcomes' order;
    /// an outcome for a journal not with the sealer (already settled) is ignored.
    mutating func sealsSettled(by outcomes: [SealOutcome]) -> [(seal: SealInFlight, failure: FileSystemError?)] {
        var settled: [(seal: SealInFlight, failure: FileSystemError?)] = []
        settled.reserveCapacity(outcomes.count)
        for outcome in outcomes {
            guard let index = sealing.firstIndex(where: { $0.batch.sequence == outcome.sequence }) else { continue }
            let seal = sealing.remove(at: index)
            bytesBeingSealed -= seal.payloadBytes
            settled.append((seal, outcome.failure))
        }
        return settled
    }

    /// What the caps count but never evict: the open journal and the journals being sealed.
    func unevictableUsage(open: OpenBatch) -> OutboxCaps.Usage {
        var usage = open.usage
        for seal in sealing {
            usage.events += seal.batch.payloads.count
            usage.bytes += seal.payloadBytes + seal.batch.payloads.count * JournalRecord.headerSize
            usage.files += 1
        }
        return usage
    }

    // MARK: Crash records

    /// What to do with a crash record handed over behind its event.
    enum CrashRecordDecision: Sendable, Equatable {
        /// Keep it, locked, until its event is on disk (``takeCrashRecordsOnDisk(everythingOnDisk:)``).
        case keepUntilOnDisk
        /// Its event never reached the journal: leave the file, unlocked, for the next launch.
        case leaveForNextLaunch
        /// Collection is off: a saved crash is unsent data, deleted with the rest.
        case discard
    }

    /// A crash record came through the pipeline just behind its `app_crashed` event.
    mutating func crashRecordHandedOver(_ record: CrashRecordFile, collecting: Bool) -> CrashRecordDecision {
        guard collecting else { return .discard }
        guard appendedCrashEventIDs.remove(record.eventID) != nil else { return .leaveForNextLaunch }
        crashRecordsAwaitingDisk.append(record)
        return .keepUntilOnDisk
    }

    /// The records to delete now: all that wait, once every event taken is on disk.
    mutating func takeCrashRecordsOnDisk(everythingOnDisk: Bool) -> [CrashRecordFile] {
        guard everythingOnDisk, !crashRecordsAwaitingDisk.isEmpty else { return [] }
        defer { crashRecordsAwaitingDisk.removeAll() }
        return crashRecordsAwaitingDisk
    }

    /// At `close` and the opt-out: every record still waiting, given up.
    mutating func giveUpCrashRecords() -> [CrashRecordFile] {
        appendedCrashEventIDs.removeAll()
        defer { crashRecordsAwaitingDisk.removeAll() }
        return crashRecordsAwaitingDisk
    }
}

/// A journal handed to the sealer, kept until its outcome comes back: the caps count it, and a
/// failed seal writes the batch afresh from it.
struct SealInFlight: Sendable {
    var batch: SealedBatch
    var payloadBytes: Int
}
