#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension OutboxActor {
    /// At launch: takes an area, finishes what a crash interrupted, adopts the areas of dead
    /// processes, and takes stock of every batch, so that what an earlier run left is sent as
    /// soon as `configure` runs. A folder that cannot be made or locked now is tried again
    /// while the client runs (``retryStorage()``).
    func recoverAtLaunch() {
        guard let layout else {
            logger.error("No storage folder; the outbox is kept in memory only (bounded by the caps).")
            return
        }
        if let distrust = Self.distrust(of: layout.root) {
            logger.error("The storage folder \(layout.root) \(distrust): another user could plant files in it. The outbox is kept in memory only; use a folder of this process's user.")
            return
        }
        if !takeStorage(in: layout, late: false) {
            state.retriesStorage = true
            scheduleStorageRetry()
        }
    }

    /// Makes the storage folder, takes an area in it and recovers what the area and the dead
    /// ones hold. `late`: the client already holds events in memory (it ran without a folder,
    /// or its area was deleted); they are numbered after everything on disk and written now.
    /// - Returns: Whether the outbox has an area now.
    func takeStorage(in layout: OutboxLayout, late: Bool) -> Bool {
        do {
            // The root's attributes first: on iOS the folders made in it inherit its class.
            // 0700 when made here; an existing folder keeps its mode: it may be shared (`/tmp`, a
            // folder holding another service's data), and locking it would lock others out.
            try fileSystem.createDirectory(layout.root, mode: 0o700)
            StorageAttributes.apply(to: layout.root)
            try fileSystem.createDirectory(layout.areasFolder, mode: 0o700)
            StorageAttributes.protect(layout.areasFolder)
        } catch where error.isRefusedLink {
            reportLinkedFolder(error, consequence: "the outbox is kept in memory only (bounded by the caps)")
            return false
        } catch {
            reportDiskTrouble(error, doing: "create its folder \(layout.root)")
            return false
        }
        makeQuarantineFolder(in: layout)
        var leftForOthers: [(name: String, claim: AreaOwner.Claim)] = []
        defer { reportLeftForOthers(leftForOthers) }
        guard let (area, lock) = acquireArea(in: layout, leftForOthers: &leftForOthers) else { return false }
        self.area = area
        areaLock = lock
        // Before anything is counted: the files a kill left settled but not deleted go.
        loadLedger(in: area)
        // The ended runs' intake logs are replayed even when this run keeps none (the option
        // turned off since): stranded, their calls would never be sent. The root's (this
        // version's, locked), then the numbered ones earlier versions kept in the area.
        var earlierLogs: [String] = []
        if !late { earlierLogs = takeLeftoverIntakeLogs(in: layout.root) + intakeLogs(in: area.folder) }
        var found = AreaContents()
        normalize(area, into: &found)
        if late {
            // What memory holds is newer than anything on disk, and must share no sequence
            // with a file (recovery retires a journal whose sequence has a batch).
            let offset = found.highestSequence + 1
            state.open.moveUp(by: offset)
            queue.moveHeldBatches(up: offset)
        }
        // What the queue holds before (batches in memory, when late): the rest is recovered.
        let (sealedBefore, setAsideBefore) = (queue.sealedUsage.events, queue.setAsideUsage.events)
        leftoverSessions += takeLeftoverSessions(in: area.folder)
        adoptDeadAreas(in: layout, into: area, found: &found, leftForOthers: &leftForOthers)
        // Before the long part of recovery, which the events held since launch wait for. (The
        // copies of what the journals hold are dropped at the outbox, after it read them.)
        if !late {
            replayIntakeLogs(earlierLogs + adoptedIntakeLogs)
            adoptedIntakeLogs = []
        }
        state.open.reserve(above: found.highestSequence)
        restoreQuarantinedBatches(into: area, in: layout)
        takeStock(of: area, in: layout)
        recoverJournals(found.journals, in: area)
        if !late { state.open.startAtNextSequence() }
        let setAsideEvents = queue.setAsideUsage.events - setAsideBefore
        let recovered = queue.sealedUsage.events - sealedBefore + setAsideEvents
        // Recovered batches the disk would not take (a full disk) are held in memory: the
        // update counts those as pending in memory, the rest on disk.
        updateCounters {
            $0.recovered += recovered
            $0.pendingOnDisk += recovered - setAsideEvents
            $0.setAside += setAsideEvents
        }
        if recovered > 0 { logger.info("Recovered \(recovered) events left by an earlier run; sending them now.") }
        logger.debug(
            "Outbox \(area.folder): \(queue.sealed.count) batch(es) waiting (\(recovered - setAsideEvents) events), "
                + "\(found.journals.count) journal(s) replayed, \(queue.setAside.count) batch(es) set aside (\(setAsideEvents) events)."
        )
        if late { writeWhatMemoryHolds() }
        enforceCaps()
        startReceipts()
        return true
    }

    /// Why the storage folder must not be trusted, or `nil` when it may: it belongs to another
    /// user (other than root: a volume mounted for a container is often root's, shared through
    /// its group), or anyone may write in it. A folder that does not exist yet is made by us, 0700;
    /// one that exists keeps its mode.
    static func distrust(of root: String) -> String? {
        var info = stat()
        guard stat(root, &info) == 0 else { return nil }
        if info.st_uid != geteuid() && info.st_uid != 0 {
            return "belongs to user \(info.st_uid), not to this process's user (\(geteuid()))"
        }
        if info.st_mode & S_IWOTH != 0 && info.st_mode & S_ISVTX == 0 {
            return "is writable by every user"
        }
        return nil
    }

    /// `quarantine/`, which only holds what cannot be read: a link there costs the quarantine,
    /// not the outbox. Unreadable files are then left where they are (``quarantine(_:in:reason:)``).
    private func makeQuarantineFolder(in layout: OutboxLayout) {
        do {
            try fileSystem.createDirectory(layout.quarantineFolder, mode: 0o700)
            StorageAttributes.protect(layout.quarantineFolder)
        } catch where error.isRefusedLink {
            reportLinkedFolder(error, consequence: "nothing is quarantined (unreadable files stay where they are)")
        } catch {
            reportDiskTrouble(error, doing: "create its folder \(layout.quarantineFolder)")
        }
    }

    /// One line for a link found where the outbox keeps a folder: what the SDK does about it and
    /// what the user can do. A link there is either a mistake or an attack (another user's, in a
    /// shared folder): following it would let the outbox's deletes and renames reach the target.
    func reportLinkedFolder(_ error: FileSystemError, consequence: String) {
        logger.error(
            "\(error.path) is a link; the SDK never follows a link inside its storage folder, so it is not used and "
                + "nothing it points to is read, moved or deleted: \(consequence). Remove the link to use the folder again."
        )
    }

    /// What the folders of an area held.
    struct AreaContents {
        var journals: [(sequence: Int, path: String)] = []
        var highestSequence = 0
    }

    /// Takes the first area whose lock is free and whose events this client may send, creating
    /// one if there is none.
    /// Another key's or endpoint's area (``AreaOwner``) is passed over, lock given back at once;
    /// an area with no owner recorded is taken and recorded as this client's.
    private func acquireArea(in layout: OutboxLayout, leftForOthers: inout [(name: String, claim: AreaOwner.Claim)]) -> (AreaLayout, AreaLock)? {
        let existing = ((try? fileSystem.contents(ofDirectory: layout.areasFolder)) ?? []).sorted()
        var candidates = existing.filter { $0.hasPrefix("a") }
        // A set beside the list: a crash loop may leave many areas, and the list is checked once per name.
        var named = Set(candidates)
        var number = 0
        while candidates.count < existing.count + 64 {
            let name = "a\(number)"
            if named.insert(name).inserted { candidates.append(name) }
            number += 1
        }
        var heldByOthers = 0
        var failure: FileSystemError?
        for name in candidates {
            let area = layout.area(name)
            do {
                try fileSystem.createDirectory(area.folder, mode: 0o700)
            } catch where error.isRefusedLink {
                reportLinkedFolder(error, consequence: "the outbox uses another area")
                continue
            } catch {
                failure = failure ?? error
                continue
            }
            switch AreaLock.acquire(area, fileSystem: fileSystem) {
            case .success(let lock):
                // Another key's or endpoint's area is left for the client that can send it.
                let claim = claim(of: area)
                guard claim.isUsable else {
                    lock.release(fileSystem: fileSystem)
                    leftForOthers.append((name, claim))
                    continue
                }
                do {
                    for folder in [area.folder, area.batchesFolder, area.setAsideFolder, area.temporaryFolder] {
                        try fileSystem.createDirectory(folder, mode: 0o700)
                        StorageAttributes.protect(folder)
                    }
                } catch where error.isRefusedLink {
                    // An area with a linked folder is never ours: its seals, deletes and renames
                    // would land in the link's target. Its real files are adopted like a dead
                    // area's (the linked folder skipped) by the client that takes another area.
                    reportLinkedFolder(error, consequence: "the outbox uses another area")
                    lock.release(fileSystem: fileSystem)
                    continue
                } catch {
                    reportDiskTrouble(error, doing: "create the area \(area.folder)")
                }
                writeLockOwner(lock.lockFileDescriptor)
                // An area of no one's, or of a key this client replaced, becomes this key's.
                if claim != .ours { recordOwner(in: area) }
                return (area, lock)
            case .failure(.held):
                heldByOthers += 1
            case .failure(.failed(let error)):
                failure = failure ?? error
            }
        }
        // Said once: the tries that follow (``retryStorage()``) fail the same way, quietly.
        guard state.storageRetry.failures == 0 else { return nil }
        // Say what really happened: a read-only or unwritable folder is not "another process".
        if let failure, heldByOthers == 0 {
            logger.error("Could not open an outbox area in \(layout.root) (\(failure)); events are kept in memory, and the folder is tried again (within a minute, and at every flush and at shutdown).")
        } else if let failure {
            logger.error("\(heldByOthers) outbox areas in \(layout.root) are held by other processes, and no new one could be made (\(failure)); events are kept in memory, and the folder is tried again (within a minute, and at every flush and at shutdown).")
        } else {
            logger.error("Every outbox area in \(layout.root) is held by another process; events are kept in memory, and the folder is tried again (within a minute, and at every flush and at shutdown).")
        }
        return nil
    }

    /// Records who holds the lock (for `sdl outbox`): the pid, in the lock file.
    private func writeLockOwner(_ descriptor: Int32) {
        try? fileSystem.truncate(descriptor, path: "lock")
        let owner = Array("pid \(getpid())\n".utf8)
        _ = try? fileSystem.write(descriptor, owner.withUnsafeBytes { $0 }, path: "lock")
    }

    /// Finishes an interrupted seal in `area`: removes temporary files, retires journals whose
    /// batch exists, and lists the journals left to recover.
    func normalize(_ area: AreaLayout, into found: inout AreaContents) {
        for name in (try? fileSystem.contents(ofDirectory: area.temporaryFolder)) ?? [] {
            try? fileSystem.remove(area.temporaryFolder + "/" + name)
        }
        let inventory = RecoveryRules.inventory(
            folderNames: (try? fileSystem.contents(ofDirectory: area.folder)) ?? [],
            batchNames: (try? fileSystem.contents(ofDirectory: area.batchesFolder)) ?? [],
            setAsideNames: (try? fileSystem.contents(ofDirectory: area.setAsideFolder)) ?? []
        )
        found.highestSequence = max(found.highestSequence, inventory.highestSequence)
        // Sealed before the crash, but not yet removed: the batch holds these events.
        for sequence in inventory.retiredJournals { try? fileSystem.remove(area.journal(sequence)) }
        for sequence in inventory.journalsToRecover { found.journals.append((sequence, area.journal(sequence))) }
    }

    /// Reads every batch file once: counts its events, logs and counts damage, quarantines what
    /// cannot be read at all, deletes what holds nothing, and seals again what holds another
    /// batch than its name says (``resealForeign(_:among:in:)``). Each folder is opened once and its
    /// files reached relative to it (``OpenedFolder``): a walk from the root per file was most of
    /// launch's time with 100,000 files.
    private func takeStock(of area: AreaLayout, in layout: OutboxLayout) {
        // A kill after the sealer renamed a journal into a batch file but before the log was
        // released replays that batch's events too: their ids are kept, to drop the copies as
        // journals' are. Only the newest files' (as many events as were replayed), so memory
        // stays bounded by the replay; copies beyond that reach the edge, which drops them by
        // event id (several dead processes' batches interleaved, for one).
        var newestIDs = NewestIDs(limit: replayPending ? replayedEvents : 0)
        defer { replayedJournalIDs.formUnion(newestIDs.ids) }
        for (folderPath, isSetAside) in [(area.batchesFolder, false), (area.setAsideFolder, true)] {
            guard let folder = try? fileSystem.openFolder(at: folderPath) else { continue }
            defer { fileSystem.closeFolder(folder) }
            let names = ((try? fileSystem.names(in: folder)) ?? []).sorted()
            var foreign: [ForeignBatchFile] = []
            for original in names {
                var name = original
                guard let parts = JournalName.batchParts(name), let id = UUID(uuidString: parts.id) else {
                    quarantine(folder.path(of: name), in: layout, reason: "not a batch file name")
                    continue
                }
                // Every later step finds a batch by the name it would write (a lowercase id); a
                // name written otherwise (an uppercase id, as `uuidString` prints) is renamed to it,
                // or the batch would sit in the queue unreadable.
                let canonical = JournalName.batch(sequence: parts.sequence, path: parts.path, id: EventEncoder.lowercaseString(id))
                if name != canonical {
                    guard (try? fileSystem.rename(name, in: folder, to: canonical, in: folder)) != nil else {
                        quarantine(folder.path(of: name), in: layout, reason: "misnamed, and could not be renamed")
                        continue
                    }
                    name = canonical
                }
                guard let bytes = try? fileSystem.readRegularFile(name, in: folder) else {
                    quarantine(folder.path(of: name), in: layout, reason: "unreadable")
                    continue
                }
                let contents = BatchFile.decode(bytes)
                reportDamage(contents.damage, in: folder.path(of: name))
                if contents.payloads.isEmpty {
                    try? fileSystem.remove(name, in: folder)
                    continue
                }
                state.open.reserve(above: parts.sequence)
                if let reason = contents.headerMismatch(expected: EventEncoder.lowercaseString(id)) {
                    foreign.append(ForeignBatchFile(name: name, sequence: parts.sequence, contents: contents, reason: reason))
                    continue
                }
                let batch = StoredBatch(id: id, sequence: parts.sequence, path: parts.path, eventCount: contents.payloads.count, byteCount: bytes.count)
                if !isSetAside { newestIDs.add(contents.payloads.compactMap(Self.eventID(inPayload:))) }
                if isSetAside {
                    queue.insertSetAside(batch)
                } else {
                    insertSealed(batch)
                }
            }
            resealForeign(foreign, among: names, in: folder)
        }
    }

    /// The event ids of the newest batch files read, oldest file first: at least `limit` of
    /// them once that many were added, and at most `limit` plus one file's.
    private struct NewestIDs {
        let limit: Int
        private var files: [[UUID]] = []
        /// The oldest file still kept (the ones before it are emptied, not removed: O(1)).
        private var first = 0
        private var count = 0

        init(limit: Int) { self.limit = limit }

        /// A newer file's ids; the oldest files go while the rest still hold `limit`.
        mutating func add(_ ids: [UUID]) {
            guard limit > 0 else { return }
            files.append(ids)
            count += ids.count
            while first < files.count - 1, count - files[first].count >= limit {
                count -= files[first].count
                files[first] = []
                first += 1
            }
        }

        var ids: [UUID] { files[first...].flatMap { $0 } }
    }

    /// Moves a file that cannot be read into the quarantine folder; never deletes it.
    /// Gives quarantined batch files another chance at every launch: one that reads now (the
    /// error was transient: `EIO` on a flaky disk, `EMFILE`, a protection class while locked)
    /// goes back into the queue under its own name; one that still cannot be read stays.
    private func restoreQuarantinedBatches(into area: AreaLayout, in layout: OutboxLayout) {
        var restored = 0
        for name in ((try? fileSystem.contents(ofDirectory: layout.quarantineFolder)) ?? []).sorted() {
            // Quarantined as `<batch name>.<uuid>[.<owner tag>]`; another key's stay.
            guard let quarantined = quarantined(name), quarantined.isOurs, JournalName.batchParts(quarantined.original) != nil else { continue }
            let path = layout.quarantineFolder + "/" + name
            guard fileSystem.isRegularFile(path), let bytes = try? fileSystem.read(path), !BatchFile.decode(bytes).payloads.isEmpty,
                  (try? fileSystem.rename(path, to: area.batchesFolder + "/" + quarantined.original)) != nil else { continue }
            restored += 1
        }
        if restored > 0 { logger.info("Restored \(restored) quarantined batch file(s) that read again.") }
    }

    func quarantine(_ path: String, in layout: OutboxLayout, reason: String) {
        // Tagged with the owner, so that only a client of the same key and endpoint restores it.
        let tag = owner.map { "." + $0.tag } ?? ""
        let name = (path.split(separator: "/").last.map(String.init) ?? "file") + "." + EventEncoder.lowercaseString(UniqueID.random()) + tag
        do {
            try fileSystem.rename(path, to: layout.quarantineFolder + "/" + name)
            logger.warning("Moved \(path) to \(layout.quarantineFolder) (\(reason)); the rest of the outbox is unaffected.")
        } catch {
            logger.warning("Could not read \(path) (\(reason)) nor move it aside (\(error)); left in place, skipped.")
        }
    }

    /// Gives the area back at shutdown: the next process (or a sibling) adopts what is left.
    func releaseArea() {
        areaLock?.release(fileSystem: fileSystem)
        areaLock = nil
    }
}
