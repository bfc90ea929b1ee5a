import Foundation

/// What the uploader does with sealed batches, through the outbox: a batch file goes only after
/// the ingest accepted it, or after a drop that INGEST-API.md lists.
extension JournalActor {
    /// The events of a sealed batch, read from its file (or memory), intact records only.
    /// `nil` when the batch is gone (evicted, opted out) or cannot be read any more.
    func load(_ id: UUID) -> SealedBatch? {
        guard let stored = sealed.first(where: { $0.id == id }) else { return nil }
        if let held = stored.heldInMemory { return held }
        guard let area, let bytes = try? fileSystem.read(area.batchesFolder + "/" + stored.fileName) else { return nil }
        return SealedBatch(id: stored.id, sequence: stored.sequence, path: stored.path, payloads: BatchFile.decode(bytes).payloads)
    }

    /// After a 202: the batch file is deleted; `delivered` and `rejected` events are counted.
    func markDelivered(_ id: UUID, rejected: Int) {
        guard let batch = remove(id) else { return }
        let rejected = min(rejected, batch.eventCount)
        counters.update {
            $0.delivered += batch.eventCount - rejected
            $0.rejectedByIngest += rejected
            $0.pendingOnDisk -= batch.eventCount
        }
    }

    /// After a 413 on a single event: the event is dropped (counted, logged by the uploader).
    func dropTooLarge(_ id: UUID) {
        guard let batch = remove(id) else { return }
        counters.update {
            $0.droppedTooLarge += batch.eventCount
            $0.pendingOnDisk -= batch.eventCount
        }
    }

    /// After a 400, or a 415 on an uncompressed body: the batch moves to `set-aside/`, kept on
    /// disk, counted, and never blocks the batches behind it.
    func setAside(_ id: UUID) {
        guard let index = sealed.firstIndex(where: { $0.id == id }) else { return }
        var batch = sealed.remove(at: index)
        if let area {
            if let held = batch.heldInMemory {
                // Never on disk: write it straight into the set-aside folder.
                let bytes = BatchFile.encode(held)
                if let descriptor = try? fileSystem.open(area.setAsideFolder + "/" + batch.fileName, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600) {
                    try? writeAll(bytes, to: descriptor, path: batch.fileName)
                    try? fileSystem.sync(descriptor, path: batch.fileName)
                    fileSystem.close(descriptor)
                    batch.heldInMemory = nil
                }
            } else {
                try? fileSystem.rename(area.batchesFolder + "/" + batch.fileName, to: area.setAsideFolder + "/" + batch.fileName)
            }
        }
        setAside.events += batch.eventCount
        setAside.bytes += batch.byteCount
        setAside.files += 1
        counters.update {
            $0.setAside += batch.eventCount
            $0.pendingOnDisk -= batch.eventCount
        }
    }

    /// After a 413: the batch becomes two halves with new ids, written durably (by the sealing
    /// protocol) before the parent goes. They sort where the parent stood: before newer batches,
    /// the left half first.
    /// - Returns: The halves, or `nil` when the batch is gone or holds a single event.
    func split(_ id: UUID) -> (StoredBatch, StoredBatch)? {
        guard let parent = load(id), parent.payloads.count > 1 else { return nil }
        let middle = parent.payloads.count / 2
        let left = SealedBatch(id: UUID(), sequence: parent.sequence, path: parent.path + "0", payloads: Array(parent.payloads[..<middle]))
        let right = SealedBatch(id: UUID(), sequence: parent.sequence, path: parent.path + "1", payloads: Array(parent.payloads[middle...]))
        let storedLeft = persist(left, retiringJournal: nil)
        let storedRight = persist(right, retiringJournal: nil)
        // Only now, with both halves on disk (or held), does the parent go.
        _ = remove(id)
        insertSealed(storedLeft)
        insertSealed(storedRight)
        return (storedLeft, storedRight)
    }

    /// Moves every set-aside batch back into the queue (`sdl outbox requeue`).
    func requeueSetAside() -> Int {
        guard let area else { return 0 }
        var moved = 0
        for name in ((try? fileSystem.contents(ofDirectory: area.setAsideFolder)) ?? []).sorted() {
            guard let parts = JournalName.batchParts(name), let id = UUID(uuidString: parts.id),
                  let bytes = try? fileSystem.read(area.setAsideFolder + "/" + name),
                  (try? fileSystem.rename(area.setAsideFolder + "/" + name, to: area.batchesFolder + "/" + name)) != nil else { continue }
            let events = BatchFile.decode(bytes).payloads.count
            insertSealed(StoredBatch(id: id, sequence: parts.sequence, path: parts.path, eventCount: events, byteCount: bytes.count))
            setAside.events -= events
            setAside.bytes -= bytes.count
            setAside.files -= 1
            counters.update {
                $0.setAside -= events
                $0.pendingOnDisk += events
            }
            moved += 1
        }
        return moved
    }

    /// Takes a batch out of the queue and deletes its file.
    private func remove(_ id: UUID) -> StoredBatch? {
        guard let index = sealed.firstIndex(where: { $0.id == id }) else { return nil }
        let batch = sealed.remove(at: index)
        if let area, batch.heldInMemory == nil {
            try? fileSystem.remove(area.batchesFolder + "/" + batch.fileName)
        }
        return batch
    }
}
