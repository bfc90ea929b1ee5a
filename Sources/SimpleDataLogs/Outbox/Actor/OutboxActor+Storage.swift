import Foundation

/// The outbox without its folder, and getting it back: a folder that could not be made at launch
/// is tried again (``StorageRetrySchedule``), and an area deleted under the client is never made
/// again without its lock; another is taken, locked, and what memory holds is written to it. One
/// error line opens each episode of disk trouble, one info line ends it.
extension OutboxActor {
    /// Events the outbox holds in memory only: the open batch's events not in a whole journal,
    /// and the sealed batches whose file could not be written. What `kill -9` would lose.
    var heldInMemoryEvents: Int { state.openEventsInMemory + queue.heldInMemoryEvents }

    /// Applies `change` to the counters together with where the outbox's pending events are
    /// now: the part held in memory is `pendingInMemory`, the rest `pendingOnDisk`. Every change
    /// of the outbox's pending count goes through here, after the state it reports has changed,
    /// so the two never call memory disk and a snapshot never sees one go negative.
    func updateCounters(_ change: (inout DeliveryCounters) -> Void = { _ in }) {
        let moved = state.recount(heldInMemory: heldInMemoryEvents)
        counters.update { counters in
            change(&counters)
            counters.pendingOnDisk -= moved
            counters.pendingInMemory += moved
        }
    }

    // MARK: A folder tried again

    /// Tries the storage folder now, when the outbox runs in memory for want of it (not for a
    /// folder it distrusts, nor with none configured): at a flush, at shutdown, and when the
    /// retry timer fires. On success, what memory holds is written to the area at once.
    func retryStorage() {
        guard area == nil, state.retriesStorage, let layout, !state.isTakingStorage else { return }
        storageRetryTimer.cancel()
        if let distrust = Self.distrust(of: layout.root) {
            // Made meanwhile by another user: never used, and not tried again.
            state.retriesStorage = false
            logger.error("The storage folder \(layout.root) \(distrust): another user could plant files in it. The outbox stays in memory; use a folder of this process's user.")
            return
        }
        let held = heldInMemoryEvents
        state.isTakingStorage = true
        let taken = takeStorage(in: layout, late: true)
        state.isTakingStorage = false
        guard taken else { return scheduleStorageRetry() }
        state.retriesStorage = false
        state.storageRetry.succeeded()
        state.diskTroubleLogged = false
        // Sessions an earlier run left open in the area taken: ended now, as at launch.
        if !leftoverSessions.isEmpty {
            endLeftoverSessions(leftoverSessions)
            leftoverSessions = []
            commit()
        }
        let written = held - heldInMemoryEvents
        logger.info("The storage folder \(layout.root) can be used now; \(written) events held in memory are on disk.")
        updateCounters()
    }

    /// Starts the retry timer unless one runs: the next try after the schedule's wait.
    func scheduleStorageRetry() {
        guard !storageRetryTimer.isPending, layout != nil else { return }
        storageRetryTimer.start(after: state.storageRetry.failed()) { .timer(.storageRetry, generation: $0) }
    }

    /// Writes what the outbox held in memory into the area just taken: the held batches as
    /// files, then the open batch as a whole new journal.
    func writeWhatMemoryHolds() {
        closeJournal()
        // A journal not whole is rewritten whole (into `tmp/`, then renamed) at the next write.
        state.journalIsComplete = state.open.isEmpty
        if queue.holdsBatchesInMemory { persistHeldBatches() }
        commit()
    }

    // MARK: An area deleted under the client

    /// Before a write: when the area's folder is no longer the one this client locked (the
    /// storage folder or the area was deleted, moved or replaced), the area is given up and
    /// another taken, locked, before anything is written. Making the old path's folders again
    /// instead (as until 2026-12) made an area with no lock, which a second process then took
    /// as its own: two writers in one area, and lost events.
    func ensureAreaIsOurs() {
        guard let area, let areaLock, !state.isTakingStorage, !areaLock.stillNames(area) else { return }
        logger.warning("The outbox area \(area.folder) was deleted or replaced behind the SDK's back; taking an area again, locked, and writing the events still in memory to it.")
        // Nothing may be written to the old path from here on: no area until one is locked.
        state.lostOpenJournal(openEvents: state.open.payloads.count)
        closeJournal()
        releaseArea()
        self.area = nil
        state.retriesStorage = true
        state.journalIsComplete = state.open.isEmpty
        // The journals with the sealer come back as failed seals (their folder is gone) and are
        // held in memory like the open batch; any that made it are files of the lost area.
        finishSeals()
        forgetFilesOfLostArea()
        retryStorage()
    }

    /// The batch files of an area that was deleted: gone with it, and counted as
    /// `lostFromDisk`, so the uploader does not try them one by one.
    private func forgetFilesOfLostArea() {
        let sealed = queue.sealed.filter { $0.heldInMemory == nil }
        let setAside = queue.setAside.filter { $0.heldInMemory == nil }
        guard !sealed.isEmpty || !setAside.isEmpty else { return }
        for batch in sealed { _ = queue.removeSealed(batch.id) }
        for batch in setAside { queue.removeSetAside(batch.id) }
        if !sealed.isEmpty { unpostedChanges.append(.left(sealed.map(\.id))) }
        let sealedEvents = sealed.reduce(0) { $0 + $1.eventCount }
        let setAsideEvents = setAside.reduce(0) { $0 + $1.eventCount }
        updateCounters {
            $0.lostFromDisk += sealedEvents + setAsideEvents
            $0.pendingOnDisk -= sealedEvents
            $0.setAside -= setAsideEvents
        }
        logger.error("\(sealed.count + setAside.count) batch file(s) (\(sealedEvents + setAsideEvents) events) went with the deleted outbox area; counted in lostFromDisk.")
    }

    /// Logs the first disk failure of an episode; later ones are counted by the episode.
    func reportDiskTrouble(_ error: FileSystemError, doing what: String) {
        guard state.diskTroubleBegins() else { return }
        let when = area == nil ? "the folder is tried again (within a minute, and at every flush and at shutdown)" : "written when the disk allows"
        logger.error("The outbox could not \(what) (\(error)). Events are kept in memory, within the caps, and \(when).")
    }

    /// Called after a disk operation succeeds: ends a trouble episode with one line.
    func diskRecovered() {
        guard state.diskTroubleEnds() else { return }
        logger.info("The outbox can write again; events held in memory are on disk now.")
    }
}
