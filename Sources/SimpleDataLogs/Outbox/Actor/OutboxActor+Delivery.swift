import Foundation

/// What the uploader did with sealed batches, carried out by the outbox: a batch file goes only
/// after the ingest accepted it, or after a drop that INGEST-API.md lists.
///
/// The uploader reads the batch files itself and never calls this actor per batch: it posts
/// ``DeliveryOutcome``s as ``OutboxInput/delivery(_:)`` messages in this actor's one input,
/// handled with the rest of a pass by the loop, and taken out of the input at each flush. None of the changes they make is posted back to the uploader (it caused them and
/// knows), except what only the outbox can tell: a split's halves.
extension OutboxActor {
    /// Carries out the uploader's outcomes waiting in the input (taken out of it; chunks,
    /// seal outcomes and timers stay, in order, for the loop): what a flush does once its
    /// barrier has passed the uploader. Returns how many batches were split.
    func applyWaitingDeliveryOutcomes() -> Int {
        applyDeliveryOutcomes(takeWaiting(\.deliveryOutcomes))
    }

    /// Carries out `taken`, in order, and wakes the sealer for the deletes. Returns how many
    /// batches were split (their halves went to the uploader's input): a flush makes another
    /// pass for them.
    func applyDeliveryOutcomes(_ taken: [DeliveryOutcome]) -> Int {
        guard !taken.isEmpty else { return 0 }
        defer { endOperation() }
        var splits = 0
        for outcome in taken {
            switch outcome {
            case .delivered(let id, let rejected):
                delivered(id, rejected: rejected, announce: false)
            case .setAside(let id):
                movedAside(id, announce: false)
            case .tooLarge(let id):
                droppedTooLarge(id, announce: false)
            case .vanished(let id):
                checkVanished(id)
            case .announce(let report):
                reports?.publish(report)
            case .split(let id):
                // The split's own queue changes are the answer, sent as one message instead.
                let before = unpostedChanges.count
                let halves = splitInTwo(id)
                unpostedChanges.removeSubrange(before...)
                uploaderInput?.push(.splitEnded(parent: id, halves: halves.map { [$0.0, $0.1] }))
                if halves != nil { splits += 1 }
            }
        }
        return splits
    }

    /// The events of a sealed batch, read from its file (or memory), for a split.
    func load(_ id: UUID) -> BatchReader.Read {
        guard let stored = queue.sealedBatch(id) else { return .vanished }
        if let held = stored.heldInMemory { return .loaded(held) }
        guard let area else { return .vanished }
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.read(area.batchesFolder + "/" + stored.fileName)
        } catch where error.code == ENOENT {
            forgetVanished(stored)
            return .vanished
        } catch {
            return .unreadable(error)
        }
        return BatchReader.check(bytes, against: stored)
    }

    /// The uploader found no file for a queued batch. Counted lost when it is still queued and
    /// its file is really gone; queued again for the uploader when the file is there after all
    /// (the area was taken again meanwhile) or the batch is held in memory; nothing when it
    /// already left the queue.
    private func checkVanished(_ id: UUID) {
        // Without an area (memory only since the folder went), nothing is counted here: the
        // outbox's own handling of the lost area does.
        guard let stored = queue.sealedBatch(id), let area else { return }
        if stored.heldInMemory != nil || fileSystem.isRegularFile(area.batchesFolder + "/" + stored.fileName) {
            unpostedChanges.append(.joined([stored]))
            return
        }
        forgetVanished(stored, announce: false)
    }

    /// A batch whose file was deleted behind the SDK's back: its events cannot be sent. Taken
    /// out of the queue and counted, so the uploader moves on instead of trying it forever.
    private func forgetVanished(_ batch: StoredBatch, announce: Bool = true) {
        _ = queue.removeSealed(batch.id)
        if announce { unpostedChanges.append(.left([batch.id])) }
        updateCounters {
            $0.lostFromDisk += batch.eventCount
            $0.pendingOnDisk -= batch.eventCount
        }
        if !vanishedFileLogged {
            vanishedFileLogged = true
            logger.error("Batch file \(batch.fileName) vanished from the outbox (deleted by another program?): its \(batch.eventCount) events are lost and counted in lostFromDisk. Later losses are counted, not logged.")
        }
    }

    /// After a 202: the batch file is deleted; `delivered` and `rejected` events are counted.
    /// - Parameter announce: Whether the uploader is told the batch left (not when it said so).
    func markDelivered(_ id: UUID, rejected: Int, announce: Bool = true) {
        defer { endOperation() }
        delivered(id, rejected: rejected, announce: announce)
    }

    private func delivered(_ id: UUID, rejected: Int, announce: Bool) {
        guard let batch = remove(id, announce: announce) else {
            // Evicted by the caps while its request was in flight, and accepted after all: its
            // events were delivered, not dropped. The counters say so (the file is gone anyway).
            if let count = queue.takeRecentlyEvicted(id) {
                let rejected = min(rejected, count)
                updateCounters {
                    $0.evictedByCaps -= count
                    $0.delivered += count - rejected
                    $0.rejectedByIngest += rejected
                }
            }
            return
        }
        let rejected = min(rejected, batch.eventCount)
        updateCounters {
            $0.delivered += batch.eventCount - rejected
            $0.rejectedByIngest += rejected
            $0.pendingOnDisk -= batch.eventCount
        }
    }

    /// After a 413 on a single event: the event is dropped (counted, logged by the uploader).
    func dropTooLarge(_ id: UUID, announce: Bool = true) {
        defer { endOperation() }
        droppedTooLarge(id, announce: announce)
    }

    private func droppedTooLarge(_ id: UUID, announce: Bool) {
        guard let batch = remove(id, announce: announce) else { return }
        updateCounters {
            $0.droppedTooLarge += batch.eventCount
            $0.pendingOnDisk -= batch.eventCount
        }
    }

    /// After a 400, or a 415 on an uncompressed body: the batch moves to `set-aside/`, kept on
    /// disk, counted, and never blocks the batches behind it.
    func setAside(_ id: UUID, announce: Bool = true) {
        defer { endOperation() }
        movedAside(id, announce: announce)
    }

    private func movedAside(_ id: UUID, announce: Bool) {
        guard var batch = queue.removeSealed(id) else { return }
        if announce { unpostedChanges.append(.left([id])) }
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
        queue.insertSetAside(batch)
        updateCounters {
            $0.setAside += batch.eventCount
            $0.setAsideInTotal += batch.eventCount
            $0.pendingOnDisk -= batch.eventCount
        }
        startSetAsideRetryTimer()
    }

    /// How long a set-aside batch waits before it is queued again while the client runs.
    static let setAsideRetryInterval: Duration = .seconds(3_600)

    /// Queues the set-aside batches again after ``setAsideRetryInterval`` on the client's clock,
    /// unless a timer already runs. A batch the ingest refuses again is set aside again; the
    /// caps bound how many wait (they go first when the outbox is full).
    func startSetAsideRetryTimer() {
        guard !setAsideRetryTimer.isPending else { return }
        setAsideRetryTimer.start(after: Self.setAsideRetryInterval) { .timer(.setAsideRetry, generation: $0) }
    }

    func setAsideRetryFired() {
        guard intake.isEnabled else { return }
        let moved = requeueSetAside()
        if moved > 0 {
            logger.info("Queued \(moved) set-aside batch(es) again, \(Int(Self.setAsideRetryInterval.components.seconds / 60)) minutes after they were refused.")
        }
    }

    /// After a 413: the batch becomes two halves with new ids, written durably (by the sealing
    /// protocol) before the parent goes. They sort where the parent stood: before newer batches,
    /// the left half first.
    /// - Returns: The halves, or `nil` when the batch is gone or holds a single event.
    func split(_ id: UUID) -> (StoredBatch, StoredBatch)? {
        defer { endOperation() }
        return splitInTwo(id)
    }

    private func splitInTwo(_ id: UUID) -> (StoredBatch, StoredBatch)? {
        guard case .loaded(let parent) = load(id), parent.payloads.count > 1 else { return nil }
        let middle = parent.payloads.count / 2
        let left = SealedBatch(id: UniqueID.random(), sequence: parent.sequence, path: parent.path + "0", payloads: Array(parent.payloads[..<middle]))
        let right = SealedBatch(id: UniqueID.random(), sequence: parent.sequence, path: parent.path + "1", payloads: Array(parent.payloads[middle...]))
        let storedLeft = persist(left, retiringJournal: nil)
        let storedRight = persist(right, retiringJournal: nil)
        // The parent's file is the durable copy until both halves are files: when the disk
        // refuses one, the split is undone (the half that made it is removed) and the parent
        // stays, to be split at a later try. In memory-only mode there is no file to keep.
        if area != nil, storedLeft.heldInMemory != nil || storedRight.heldInMemory != nil {
            for half in [storedLeft, storedRight] where half.heldInMemory == nil {
                if let area { try? fileSystem.remove(area.batchesFolder + "/" + half.fileName) }
            }
            return nil
        }
        // Only now, with both halves on disk (or in memory-only mode), does the parent go.
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
            // Renamed to the name the queue will look for (a lowercase id), whatever it was called.
            guard let parts = JournalName.batchParts(name), let id = UUID(uuidString: parts.id),
                  let bytes = try? fileSystem.read(area.setAsideFolder + "/" + name) else { continue }
            let canonical = JournalName.batch(sequence: parts.sequence, path: parts.path, id: EventEncoder.lowercaseString(id))
            guard (try? fileSystem.rename(area.setAsideFolder + "/" + name, to: area.batchesFolder + "/" + canonical)) != nil else { continue }
            let events = BatchFile.decode(bytes).payloads.count
            insertSealed(StoredBatch(id: id, sequence: parts.sequence, path: parts.path, eventCount: events, byteCount: bytes.count))
            queue.removeSetAside(id)
            updateCounters {
                $0.setAside -= events
                $0.pendingOnDisk += events
            }
            moved += 1
        }
        return moved
    }

    /// Takes a batch out of the queue and deletes its file.
    private func remove(_ id: UUID, announce: Bool = true) -> StoredBatch? {
        guard let batch = queue.removeSealed(id) else { return nil }
        if announce { unpostedChanges.append(.left([id])) }
        if let area, batch.heldInMemory == nil {
            removeLater(area.batchesFolder + "/" + batch.fileName)
        }
        return batch
    }
}
