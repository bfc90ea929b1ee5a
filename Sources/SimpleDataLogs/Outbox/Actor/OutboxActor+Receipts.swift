#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The completeness receipts: the ledger (``ReceiptLedger``) kept in `<area>/receipts.ledger`,
/// stored on this thread through the outbox's file system (temporary file in `tmp/`, then
/// `rename`; every open `O_NOFOLLOW`), before any batch file whose fate it counts is deleted;
/// and the receipts made from it, once a period and, on servers, at shutdown.
///
/// A receipt is made in three steps, each stored: the counts become a pending receipt (1), its
/// event is journaled (2), the ledger forgets it once a journal file holds it (3). A kill
/// anywhere makes the same receipt again, with the same event id, never a new one.
extension OutboxActor {
    /// The ledger's slots in `area` (``ReceiptLedger/fileNames``).
    func ledgerPaths(in area: AreaLayout) -> [String] { ReceiptLedger.fileNames.map { area.folder + "/" + $0 } }

    /// The newest intact ledger among `area`'s slots; `.damaged` when a slot exists but none
    /// is intact, `.none` when there is no slot.
    private func readLedger(in area: AreaLayout) -> (found: (ledger: ReceiptLedger, slot: Int, stored: UInt64)?, anyFile: Bool) {
        let slots = ledgerPaths(in: area).map { path -> [UInt8]? in
            fileSystem.isRegularFile(path) ? ((try? fileSystem.read(path)) ?? []) : nil
        }
        return (ReceiptLedger.newest(of: slots), slots.contains { $0 != nil })
    }

    // MARK: Launch

    /// At launch, once the area is taken and before its files are counted: reads the ledger
    /// and deletes, uncounted, the batch files it names as settled (a kill came between the
    /// count and the deletion). Without receipts the files go all the same, and so does the ledger.
    func loadLedger(in area: AreaLayout) {
        let (found, anyFile) = readLedger(in: area)
        guard anyFile else { return }
        guard let found else {
            logger.warning("The receipts ledger in \(area.folder) is damaged; a new one starts (the counts since the last receipt are lost, the events themselves are not).")
            if !receipts.isOn { for path in ledgerPaths(in: area) { try? fileSystem.remove(path) } }
            return
        }
        var stored = merged(found.ledger)
        for name in stored.takeSettledFiles() { try? fileSystem.remove(area.folder + "/" + name) }
        guard receipts.isOn else {
            for path in ledgerPaths(in: area) { try? fileSystem.remove(path) }
            return
        }
        keeping.ledger = stored
        keeping.slot = found.slot
        keeping.stored = found.stored
        keeping.needsWrite = true
    }

    /// `stored` with what this client counted before it had the area (it ran from memory).
    private func merged(_ stored: ReceiptLedger) -> ReceiptLedger {
        var stored = stored
        stored.add(keeping.ledger.counts)
        stored.pending += keeping.ledger.pending
        return stored
    }

    /// At adoption, before a dead area's files are moved: deletes the files its ledger names as
    /// settled, takes its counts and pending receipts into this area's ledger (stored first),
    /// then deletes its ledger. A kill in between finds the copy already absorbed.
    func absorbLedger(of dead: AreaLayout) {
        let (found, anyFile) = readLedger(in: dead)
        guard anyFile else { return }
        if var theirs = found?.ledger {
            for name in theirs.takeSettledFiles() { try? fileSystem.remove(dead.folder + "/" + name) }
            if receipts.isOn, keeping.ledger.absorb(theirs, at: receipts.wallClock.nowMilliseconds) {
                keeping.needsWrite = true
                storeLedger()
            }
        }
        for path in ledgerPaths(in: dead) { try? fileSystem.remove(path) }
    }

    /// At the end of recovery: makes again the receipts a kill left pending (unless a recovered
    /// file holds their events already), then makes one if a period has passed since the last,
    /// and starts the timer for the next.
    func startReceipts() {
        guard receipts.isOn else { return }
        if !keeping.ledger.pending.isEmpty {
            let found = eventIDsOnDisk(among: Set(keeping.ledger.pending.map(\.eventID)))
            keeping.ledger.receiptsJournaled(found)
            keeping.needsWrite = keeping.needsWrite || !found.isEmpty
            if intake.isEnabled {
                for receipt in keeping.ledger.pending where !keeping.journaled.contains(receipt.eventID) { journal(receipt) }
            }
        }
        if keeping.ledger.isDue(now: receipts.wallClock.nowMilliseconds, period: receipts.periodMilliseconds) {
            makeReceipt(reason: "a day after the last")
        }
        startReceiptTimer()
    }

    /// Which of `ids` a batch file or journal of the area holds (read only when a kill left a
    /// receipt pending: a few files at launch).
    private func eventIDsOnDisk(among ids: Set<UUID>) -> Set<UUID> {
        guard let area else { return [] }
        var remaining = Dictionary(uniqueKeysWithValues: ids.map { ($0, Array(("\"" + EventEncoder.lowercaseString($0) + "\"").utf8)) })
        var found: Set<UUID> = []
        var paths: [String] = []
        for folder in [area.batchesFolder, area.setAsideFolder] {
            paths += ((try? fileSystem.contents(ofDirectory: folder)) ?? []).map { folder + "/" + $0 }
        }
        paths += ((try? fileSystem.contents(ofDirectory: area.folder)) ?? []).filter { JournalName.journalSequence($0) != nil }.map { area.folder + "/" + $0 }
        for path in paths where !remaining.isEmpty {
            guard let bytes = try? fileSystem.read(path) else { continue }
            for (id, needle) in remaining where bytes.contains(needle) {
                found.insert(id)
                remaining[id] = nil
            }
        }
        return found
    }

    // MARK: Receipts

    func startReceiptTimer() {
        let wait = keeping.ledger.untilDue(now: receipts.wallClock.nowMilliseconds, period: receipts.periodMilliseconds)
        receiptTimer.start(after: .milliseconds(max(wait, 1))) { .timer(.receipt, generation: $0) }
    }

    func receiptTimerFired() {
        // Sealed at once: the receipt goes now, not with the next batch.
        makeReceipt(reason: "a day after the last", sealsNow: true)
        startReceiptTimer()
    }

    /// Makes a receipt of everything counted since the last one, unless collection is off (the
    /// opt-out wiped the ledger, and nothing is sent while it lasts).
    /// - Parameters:
    ///   - reason: Why, for the debug line.
    ///   - sealsNow: Whether its batch is sealed at once (the daily timer's), or goes with the
    ///     next seal (at launch; at shutdown, which seals anyway).
    func makeReceipt(reason: String, sealsNow: Bool = false) {
        guard receipts.isOn, intake.isEnabled else { return }
        foldCounters()
        let counters = counters.snapshot
        let receipt = keeping.ledger.beginReceipt(
            at: receipts.wallClock.nowMilliseconds, setAside: counters.setAside, pending: counters.pending,
            appVersion: keeping.seenAppVersion ?? bundleAppVersion()
        )
        keeping.needsWrite = true
        storeLedger()
        if receiptCrashPoint == .afterReceiptBegun { kill(getpid(), SIGKILL) }
        journal(receipt)
        commit()
        if receiptCrashPoint == .afterReceiptJournaled { kill(getpid(), SIGKILL) }
        if sealsNow { seal() }
        logger.debug("Completeness receipt \(receipt.sequence) made \(reason): \(receipt.counts.delivered) of \(receipt.counts.settled) settled events delivered.")
    }

    /// Step 2: the receipt's event joins the open batch like the SDK's other own events
    /// (counted as tracked, so the conservation law covers it), past the app's middleware: it
    /// carries no data of the app's, and a step that drops unknown events would lose it.
    private func journal(_ receipt: PendingReceipt) {
        intake.admitGenerated(1)
        append(receipt.event)
        keeping.journaled.insert(receipt.eventID)
    }

    /// The app's version from the bundle (apps), once; servers pass theirs as an `app_version`
    /// property on their events, which wins.
    private func bundleAppVersion() -> String? {
        receipts.context?.read().appVersion
    }

    // MARK: Storing

    /// Adds what the counters counted since the last fold to the ledger.
    func foldCounters() {
        let now = ReceiptCounts(counters.snapshot)
        let delta = now - keeping.baseline
        guard !delta.isZero else { return }
        keeping.baseline = now
        keeping.ledger.add(delta)
        keeping.needsWrite = true
    }

    /// At the start of every operation's end: when it settled batches (files to delete, or
    /// counts of their fate), the ledger is stored with their names first; then the deletions
    /// go to the sealer. Receipts journaled earlier stop being pending once the journal is whole.
    func storeLedgerIfNeeded() {
        guard receipts.isOn else { return }
        let now = ReceiptCounts(counters.snapshot)
        let delta = now - keeping.baseline
        let removals = keeping.removalsAwaitingLedger
        if !keeping.journaled.isEmpty, holdsEverythingOnDisk {
            keeping.ledger.receiptsJournaled(keeping.journaled)
            keeping.journaled = []
            keeping.needsWrite = true
        }
        guard keeping.needsWrite || !removals.isEmpty || delta.differsInFileSettlements(from: ReceiptCounts()) else { return }
        keeping.removalsAwaitingLedger = []
        keeping.baseline = now
        if let area {
            let prefix = area.folder + "/"
            let names = removals.compactMap { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : nil }
            keeping.ledger.settle(delta, files: names) { fileSystem.isRegularFile(prefix + $0) }
        } else {
            keeping.ledger.add(delta)
        }
        keeping.needsWrite = true
        storeLedger()
        if !removals.isEmpty, receiptCrashPoint == .afterSettlement { kill(getpid(), SIGKILL) }
        for path in removals { sealer.handQuietly(.remove(path: path, spareFolder: area?.temporaryFolder)) }
        if !removals.isEmpty { sealer.jobs.wake() }
    }

    /// Writes the ledger into the slot that does not hold the newest copy, in place
    /// (``ReceiptLedger/fileNames``): a kill leaves that slot torn and the other whole, never both
    /// torn. Not synced: a kill keeps the page cache, and after a power loss the sealed batches it
    /// counted may be sent again (DESIGN.md, "Durability contract").
    func storeLedger() {
        guard keeping.needsWrite, let area else { return }
        let slot = 1 - keeping.slot
        let path = ledgerPaths(in: area)[slot]
        do {
            let descriptor = try fileSystem.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            defer { fileSystem.close(descriptor) }
            try writeAll(keeping.ledger.encoded(stored: keeping.stored + 1), to: descriptor, path: path)
            keeping.slot = slot
            keeping.stored += 1
            keeping.needsWrite = false
            keeping.storeFailing = false
        } catch {
            // Once an episode: the events are not affected, only what the next receipt says.
            guard !keeping.storeFailing else { return }
            keeping.storeFailing = true
            logger.error("The receipts ledger \(path) could not be stored (\(error)): its counts stay in memory and are stored with the next delivery; a kill before then loses them from the next receipt. The events themselves are not affected.")
        }
    }

    /// The opt-out: the ledger file went with the rest of the area; the ledger starts again with
    /// a new id and nothing counted, and the counts so far are never reported.
    func wipeLedger() {
        guard receipts.isOn else { return }
        keeping.ledger = .wiped(id: UniqueID.random(), now: receipts.wallClock.nowMilliseconds)
        keeping.baseline = ReceiptCounts(counters.snapshot)
        keeping.journaled = []
        keeping.removalsAwaitingLedger = []
        keeping.needsWrite = false
    }
}

extension [UInt8] {
    /// Whether `needle` occurs in the bytes.
    fileprivate func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count, let first = needle.first else { return false }
        var index = startIndex
        while let start = self[index...].firstIndex(of: first), start + needle.count <= endIndex {
            if self[start..<(start + needle.count)].elementsEqual(needle) { return true }
            index = start + 1
        }
        return false
    }
}
