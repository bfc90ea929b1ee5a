#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension JournalActor {
    /// Seals the open batch into a batch file and starts a new journal.
    ///
    /// The journal file is already in the batch format, so sealing it is (DESIGN.md, "Sealing"):
    /// 1. `fsync` the journal           → a crash leaves a journal; recovery seals it
    /// 2. rename it into `batches/`     → atomic: the events are in exactly one file either way
    /// No temporary file and no second copy: one `fsync` per batch. When the journal file is not
    /// whole (the disk failed under it), the batch is written afresh by ``persist(_:retiringJournal:)``.
    func seal() {
        guard !openPayloads.isEmpty else { return }
        sealTimer?.cancel()
        sealTimer = nil
        commit()
        if sealed.contains(where: { $0.heldInMemory != nil }) { persistHeldBatches() }
        let stored = sealJournalInPlace() ?? {
            closeJournal()
            let batch = SealedBatch(id: openBatchID, sequence: openSequence, path: "r", payloads: openPayloads)
            return persist(batch, retiringJournal: openSequence)
        }()
        insertSealed(stored)
        openPayloads.removeAll(keepingCapacity: true)
        openPayloadBytes = 0
        journalIsComplete = true
        openSequence = nextSequence
        openBatchID = UUID()
        nextSequence += 1
        enforceCaps()
        uploaderSignals?.yield(.batchesAvailable)
    }

    /// Turns the open journal file into the batch file: `fsync`, close, rename. `nil` when the
    /// file is not whole or a step fails (the caller then writes the batch afresh).
    private func sealJournalInPlace() -> StoredBatch? {
        guard let area, journalDescriptor >= 0, journalIsComplete else { return nil }
        let journal = area.journal(openSequence)
        let stored = StoredBatch(
            id: openBatchID, sequence: openSequence, path: "r", eventCount: openPayloads.count,
            byteCount: openPayloadBytes + openPayloads.count * JournalRecord.headerSize + 96
        )
        do {
            try fileSystem.sync(journalDescriptor, path: journal)
            crashIfRequested(.afterJournalSync)
            closeJournal()
            try fileSystem.rename(journal, to: area.batchesFolder + "/" + stored.fileName)
            crashIfRequested(.afterRename)
            diskRecovered()
            return stored
        } catch {
            reportDiskTrouble(error, doing: "seal a batch")
            return nil
        }
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

    /// Keeps `sealed` oldest first, and wakes whoever waits for seals.
    func insertSealed(_ batch: StoredBatch) {
        let index = sealed.firstIndex { StoredBatch.isOlder(batch, $0) } ?? sealed.endIndex
        sealed.insert(batch, at: index)
        sealsSinceLaunch += 1
        let count = sealsSinceLaunch
        let ready = sealWaiters.filter { $0.count <= count }
        sealWaiters.removeAll { $0.count <= count }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Tries again to write the batches the disk refused earlier, oldest first.
    func persistHeldBatches() {
        for index in sealed.indices {
            guard let batch = sealed[index].heldInMemory else { continue }
            let stored = persist(batch, retiringJournal: batch.path == "r" ? batch.sequence : nil)
            guard stored.heldInMemory == nil else { return }
            sealed[index] = stored
        }
    }

    /// What the caps count: the open journal, the sealed batches and the set-aside ones.
    var usage: OutboxCaps.Usage {
        var usage = setAside
        usage.events += openPayloads.count
        usage.bytes += openPayloadBytes + openPayloads.count * JournalRecord.headerSize
        usage.files += openPayloads.isEmpty ? 0 : 1
        for batch in sealed {
            usage.events += batch.eventCount
            usage.bytes += batch.byteCount
            usage.files += 1
        }
        return usage
    }

    /// Drops the oldest sealed batches while the outbox is over a cap; one log line per episode.
    func enforceCaps() {
        let count = caps.evictionCount(usage: usage, evictable: sealed.map(\.usage))
        guard count > 0 else {
            evictionEpisodeLogged = false
            return
        }
        let evicted = sealed.prefix(count)
        sealed.removeFirst(count)
        let events = evicted.reduce(0) { $0 + $1.eventCount }
        if let area {
            for batch in evicted where batch.heldInMemory == nil {
                try? fileSystem.remove(area.batchesFolder + "/" + batch.fileName)
            }
        }
        counters.update {
            $0.evictedByCaps += events
            $0.pendingOnDisk -= events
        }
        if !evictionEpisodeLogged {
            evictionEpisodeLogged = true
            logger.warning("The outbox reached its cap (\(caps.maxEvents) events, \(caps.maxBytes / 1_000_000) MB or \(caps.maxFiles) files); dropped the oldest \(count) batches (\(events) events). More are dropped, and counted, until sending catches up.")
        }
    }
}
