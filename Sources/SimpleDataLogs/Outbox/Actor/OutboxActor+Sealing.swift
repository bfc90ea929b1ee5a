#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension OutboxActor {
    /// Seals the open batch into a batch file and starts a new journal.
    ///
    /// The journal file is already in the batch format, so sealing it is (DESIGN.md, "Sealing"):
    /// 1. make it durable (`fdatasync`) → a crash leaves a journal; recovery seals it
    /// 2. rename it into `batches/`  → atomic: the events are in exactly one file either way
    /// No temporary file and no second copy. Both steps are the sealer's (``SealerActor``): this
    /// thread hands the journal over and goes on writing the next one. The batch joins the queue
    /// when its outcome comes back (``applySealOutcomes(_:)``). When the journal file is not whole
    /// (the disk failed under it), the batch is written afresh here by
    /// ``persist(_:retiringJournal:)``.
    func seal() {
        guard !state.open.isEmpty else { return }
        sealTimer.cancel()
        commit()
        if queue.holdsBatchesInMemory { persistHeldBatches() }
        let payloadBytes = state.open.payloadBytes
        let batch = state.open.seal()
        // Its events leave the open batch: to the sealer (a whole journal), a file, or memory.
        state.openEventsOffDisk = 0
        if let area, journalDescriptor >= 0, state.journalIsComplete {
            // The descriptor now belongs to the sealer.
            let mustWait = state.handedToSealer(SealInFlight(batch: batch, payloadBytes: payloadBytes))
            let journal = area.journal(batch.sequence)
            // Quietly: the sealer is woken once at the end of this operation
            // (``endOperation()``), for every journal sealed in it.
            sealer.handQuietly(.seal(JournalSeal(
                sequence: batch.sequence, descriptor: journalDescriptor, journalPath: journal,
                batchPath: area.batchesFolder + "/" + batch.fileName, folder: area.folder,
                spareFolder: area.temporaryFolder
            )))
            state.sealerWakeDue = true
            journalDescriptor = -1
            crashIfRequested(.afterHandOff)
            // Back-pressure (``OutboxState/maxBytesBeingSealed``): the journal waits for the sealer.
            if mustWait { waitForRoomWithSealer() }
        } else {
            closeJournal()
            var stored = persist(batch, retiringJournal: batch.sequence)
            let undurable = state.sealedOpenBatch()
            if stored.heldInMemory == nil {
                advanceWatermark(by: undurable, latest: nil)
            } else {
                stored.undurableEvents = undurable
            }
            insertSealed(stored)
            enforceCaps()
        }
        state.journalIsComplete = true
    }

    /// Queues the batches of the sealer's `outcomes`, oldest first; a journal the sealer could
    /// not make durable or move is written afresh (temporary file, sync, rename), or held in
    /// memory until the disk allows. Ends by enforcing the caps.
    func applySealOutcomes(_ outcomes: [SealOutcome]) {
        guard !outcomes.isEmpty else { return enforceCaps() }
        var done: [SealedBatch] = []
        done.reserveCapacity(outcomes.count)
        defer { sealer.handQuietly(.discardBatches(done)) }
        for (seal, failure) in state.sealsSettled(by: outcomes) {
            done.append(seal.batch)
            if let failure {
                reportDiskTrouble(failure, doing: "seal a journal")
                insertSealed(persist(seal.batch, retiringJournal: seal.batch.sequence))
            } else {
                insertSealed(StoredBatch(
                    id: seal.batch.id, sequence: seal.batch.sequence, path: "r", eventCount: seal.batch.payloads.count,
                    byteCount: seal.payloadBytes + seal.batch.payloads.count * JournalRecord.headerSize + 96
                ))
                diskRecovered()
            }
        }
        // One debug line per group the sealer made durable, never one per event.
        if let first = done.first, let last = done.last {
            let events = done.reduce(0) { $0 + $1.payloads.count }
            let range = done.count == 1 ? "batch \(first.sequence)" : "batches \(first.sequence)–\(last.sequence)"
            logger.debug("Sealed \(range) on disk: \(events) events in \(done.count) file(s), ready to send.")
        }
        enforceCaps()
    }

    /// Waits (blocking this thread, the outbox's own) until the sealer has done everything
    /// handed to it, then applies the outcomes: for the moments that need every earlier seal
    /// queued or every earlier delete done (a barrier, `flush`, the opt-out, `close`).
    ///
    /// The outcomes are messages in ``input``: they are taken out of it here, and whatever else
    /// waits there (chunks behind this one, timers) stays, in order, for the loop.
    func finishSeals() {
        // Deletions waiting for the receipts ledger go first (it is stored now), so the sealer's
        // order is the one the operation asked for.
        storeLedgerIfNeeded()
        sealer.blockUntilCaughtUp()
        applySealOutcomes(takeWaiting(\.sealOutcomes))
        // Those outcomes may have made the caps evict: the evicted files go too before whoever
        // waits here looks at the folder (a barrier's waiter would otherwise find a batch both
        // counted evicted and still on disk). No wait when nothing was handed over since.
        storeLedgerIfNeeded()
        sealer.blockUntilCaughtUp()
    }

    /// Back-pressure: blocks this thread (the outbox's own) while the journals with the sealer
    /// hold more than ``OutboxState/maxBytesBeingSealed`` of events, applying the outcomes of
    /// each group the sealer finishes. It waits for room, one group at a time, not for the sealer
    /// to run dry as ``finishSeals()`` does: the journal goes on as soon as the oldest seals are
    /// durable, while the newest are still being flushed.
    func waitForRoomWithSealer() {
        while state.bytesBeingSealed > OutboxState.maxBytesBeingSealed {
            let before = state.bytesBeingSealed
            sealer.blockUntilProgress()
            applySealOutcomes(takeWaiting(\.sealOutcomes))
            // Nothing came back (the sealer had nothing left): the rest is settled in the loop.
            if state.bytesBeingSealed == before { break }
        }
    }

    /// The outcomes of one kind waiting in ``input`` (`\.sealOutcomes`, `\.deliveryOutcomes`),
    /// taken out of it, oldest first; whatever else waits there (chunks, timers) stays, in order,
    /// for the loop.
    func takeWaiting<Outcome>(_ outcomes: (OutboxInput) -> [Outcome]?) -> [Outcome] {
        input.takeAll(where: { outcomes($0) != nil }).flatMap { outcomes($0) ?? [] }
    }

    /// Retires a file the outbox is done with, off this thread (the sealer's job: deleted, or
    /// emptied into a spare journal).
    func removeLater(_ path: String) {
        // With a ledger on disk, the file goes only once the ledger names it (``endOperation()``).
        if receipts.isOn, area != nil {
            keeping.removalsAwaitingLedger.append(path)
            return
        }
        sealer.hand(.remove(path: path, spareFolder: area?.temporaryFolder))
    }

    /// Writes `batch` as a file by the sealing protocol, or keeps it in memory when the disk
    /// refuses. Removes the journal it came from once the file is in place.
    func persist(_ batch: SealedBatch, retiringJournal sequence: Int?) -> StoredBatch {
        let bytes = BatchFile.encode(batch)
        var stored = StoredBatch(
            id: batch.id, sequence: batch.sequence, path: batch.path, eventCount: batch.payloads.count,
            byteCount: bytes.count, heldInMemory: batch
        )
        guard let area else { return stored }
        let temporary = area.temporaryFolder + "/" + batch.fileName
        let final = area.batchesFolder + "/" + batch.fileName
        do {
            let descriptor = try openRecreatingFolders(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
            defer { fileSystem.close(descriptor) }
            try writeAll(bytes, to: descriptor, path: temporary)
            try fileSystem.sync(descriptor, path: temporary)
        } catch {
            try? fileSystem.remove(temporary)
            reportDiskTrouble(error, doing: "write a batch file")
            return stored
        }
        do {
            try fileSystem.rename(temporary, to: final)
        } catch {
            try? fileSystem.remove(temporary)
            reportDiskTrouble(error, doing: "seal a batch file")
            return stored
        }
        syncFolder(area.batchesFolder)
        if let sequence { try? fileSystem.remove(area.journal(sequence)) }
        stored.heldInMemory = nil
        diskRecovered()
        return stored
    }

    /// Makes a rename durable: `fsync` on the folder. Best effort; a failure only weakens the
    /// power-loss guarantee for this one rename.
    func syncFolder(_ path: String) {
        guard let descriptor = try? fileSystem.open(path, flags: O_RDONLY | O_DIRECTORY, mode: 0) else { return }
        try? fileSystem.sync(descriptor, path: path)
        fileSystem.close(descriptor)
    }

    /// Queues a sealed batch, and wakes whoever waits for seals.
    func insertSealed(_ batch: StoredBatch) {
        queue.insertSealed(batch)
        unpostedChanges.append(.joined([batch]))
        sealWaiters.takeReached(queue.sealsSinceLaunch).resume()
    }

    /// Tries again to write the batches the disk refused earlier, oldest first.
    func persistHeldBatches() {
        for stored in queue.sealed {
            guard let batch = stored.heldInMemory else { continue }
            let written = persist(batch, retiringJournal: batch.path == "r" ? batch.sequence : nil)
            guard written.heldInMemory == nil else { return }
            advanceWatermark(by: stored.undurableEvents, latest: nil)
            queue.replaceSealed(written)
        }
    }

    /// What the caps count but never evict: the open journal and the journals being sealed.
    var unevictableUsage: OutboxCaps.Usage { state.unevictableUsage(open: state.open) }

    /// Applies the caps (``OutboxQueue/enforce(_:unevictable:)``): deletes the files of the
    /// batches it drops, counts their events, and logs the episode's first line.
    ///
    /// Runs after every seal and at the end of every chunk: the open journal grows between seals
    /// and is never evicted itself, so without the chunk-end check the outbox could sit up to a
    /// batch over its cap until the next seal.
    func enforceCaps() {
        let eviction = queue.enforce(caps, unevictable: unevictableUsage)
        guard !eviction.isEmpty else { return }
        if !eviction.evicted.isEmpty { unpostedChanges.append(.left(eviction.evicted.map(\.id))) }
        if let area {
            for batch in eviction.refused { removeLater(area.setAsideFolder + "/" + batch.fileName) }
            for batch in eviction.evicted where batch.heldInMemory == nil {
                removeLater(area.batchesFolder + "/" + batch.fileName)
            }
        }
        let (refusedEvents, pendingEvents) = (eviction.refusedEvents, eviction.evictedEvents)
        updateCounters {
            $0.evictedByCaps += refusedEvents + pendingEvents
            $0.setAside -= refusedEvents
            $0.pendingOnDisk -= pendingEvents
        }
        if let line = eviction.firstLine { logger.warning(line) }
    }
}
