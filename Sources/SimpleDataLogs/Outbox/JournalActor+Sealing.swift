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
    /// The protocol, and what a crash after each step leaves (DESIGN.md, "Sealing"):
    /// 1. write `tmp/<name>`            → the journal still holds the events; recovery deletes tmp
    /// 2. `fsync` it                    → same
    /// 3. rename it into `batches/`     → batch and journal both exist; recovery retires the
    ///                                    journal because a batch of its sequence exists
    /// 4. `fsync` the batches folder, unlink the journal → sealed
    func seal() {
        guard !openPayloads.isEmpty else { return }
        sealTimer?.cancel()
        sealTimer = nil
        commit()
        let batch = SealedBatch(id: UUID(), sequence: openSequence, path: "r", payloads: openPayloads)
        closeJournal()
        if sealed.contains(where: { $0.heldInMemory != nil }) { persistHeldBatches() }
        let stored = persist(batch, retiringJournal: openSequence)
        insertSealed(stored)
        openPayloads.removeAll(keepingCapacity: true)
        openPayloadBytes = 0
        journalIsComplete = true
        openSequence = nextSequence
        nextSequence += 1
        enforceCaps()
        uploaderSignals?.yield(.batchesAvailable)
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
            crashIfRequested(.afterTemporaryWrite)
            try fileSystem.sync(descriptor, path: temporary)
            crashIfRequested(.afterTemporarySync)
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
        crashIfRequested(.afterRename)
        syncFolder(area.batchesFolder)
        if let sequence { try? fileSystem.remove(area.journal(sequence)) }
        crashIfRequested(.afterJournalRemoval)
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
