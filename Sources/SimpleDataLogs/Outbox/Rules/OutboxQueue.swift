import Foundation

/// What the outbox holds, as a value: the sealed batches waiting to be sent (oldest first), the
/// set-aside batches the ingest refused, the batches the caps evicted lately, and the caps'
/// decisions with their once-per-episode log line. ``OutboxActor`` keeps one and does the file
/// work its functions ask for (delete, move); `OutboxQueueTests` drives it without files.
struct OutboxQueue: Sendable {
    /// What the caps decided: the batches to delete (set-aside first, then the oldest sealed),
    /// and the line to log when this eviction starts an episode.
    struct Eviction: Sendable, Equatable {
        /// Set-aside batches dropped (their files are in `set-aside/`).
        var refused: [StoredBatch] = []
        /// Sealed batches dropped (their files, if any, are in `batches/`).
        var evicted: [StoredBatch] = []
        /// The episode's warning, only for the first eviction of an episode.
        var firstLine: String?

        /// Events of the dropped set-aside batches.
        var refusedEvents: Int { refused.reduce(0) { $0 + $1.eventCount } }
        /// Events of the dropped sealed batches.
        var evictedEvents: Int { evicted.reduce(0) { $0 + $1.eventCount } }
        /// Whether nothing is dropped.
        var isEmpty: Bool { refused.isEmpty && evicted.isEmpty }
    }

    /// How many evicted batches are remembered for a 202 that comes after their eviction (a
    /// request in flight is among the newest).
    static let recentlyEvictedLimit = 64

    /// The sealed batches, oldest first (``StoredBatch/isOlder(_:_:)``).
    private(set) var sealed = BatchQueue()
    /// The batches the ingest refused (400, 415), oldest first: kept on disk, evicted first by
    /// the caps, queued again at every launch and every hour.
    private(set) var setAside = BatchQueue()
    /// Sealed batches the caps evicted lately, oldest first, with their event counts.
    private(set) var recentlyEvicted: [(id: UUID, events: Int)] = []
    /// Batches sealed (or recovered, or split into) since launch: what `waitForSeals` counts.
    private(set) var sealsSinceLaunch = 0
    /// Events of the sealed batches held in memory (no folder, or the disk refused their file):
    /// pending, but not on disk, so the counters call them `pendingInMemory`.
    private(set) var heldInMemoryEvents = 0
    private var evictionEpisodeLogged = false

    // MARK: Sealed batches

    /// The sealed batch with this id.
    func sealedBatch(_ id: UUID) -> StoredBatch? {
        sealed.batch(id)
    }

    /// Adds a sealed batch where its age puts it.
    mutating func insertSealed(_ batch: StoredBatch) {
        sealed.insert(batch)
        sealsSinceLaunch += 1
        heldInMemoryEvents += batch.heldEvents
    }

    /// Takes a sealed batch out of the queue.
    mutating func removeSealed(_ id: UUID) -> StoredBatch? {
        guard let batch = sealed.remove(id) else { return nil }
        heldInMemoryEvents -= batch.heldEvents
        return batch
    }

    /// Replaces a sealed batch in place (a held batch that became a file).
    mutating func replaceSealed(_ batch: StoredBatch) {
        guard let old = sealed.batch(batch.id) else { return }
        heldInMemoryEvents += batch.heldEvents - old.heldEvents
        sealed.replace(batch)
    }

    /// Moves every batch held in memory (sealed or set aside) `offset` sequences up, keeping
    /// their order: when a folder is taken late (the client ran in memory, or its folder was
    /// deleted), what it already holds on disk keeps its numbers, and the held batches, newer,
    /// sort after it and never share a sequence with a file (recovery retires a journal whose
    /// sequence has a batch). Their ids stay, so the uploader's copy still finds them.
    mutating func moveHeldBatches(up offset: Int) {
        guard offset > 0 else { return }
        func moved(_ batch: StoredBatch) -> StoredBatch {
            guard batch.heldInMemory != nil else { return batch }
            var batch = batch
            batch.sequence += offset
            batch.heldInMemory?.sequence += offset
            return batch
        }
        func rebuilt(_ queue: BatchQueue) -> BatchQueue {
            var result = BatchQueue()
            for batch in queue.map(moved).sorted(by: StoredBatch.isOlder) { result.insert(batch) }
            return result
        }
        sealed = rebuilt(sealed)
        setAside = rebuilt(setAside)
    }

    /// Whether a sealed batch is held in memory because the disk refused it.
    var holdsBatchesInMemory: Bool { sealed.heldInMemoryCount > 0 }

    // MARK: Set-aside batches

    /// Adds a set-aside batch where its age puts it.
    mutating func insertSetAside(_ batch: StoredBatch) {
        setAside.insert(batch)
    }

    /// Takes a set-aside batch out (it was queued again).
    @discardableResult
    mutating func removeSetAside(_ id: UUID) -> StoredBatch? {
        setAside.remove(id)
    }

    /// What the set-aside batches hold, in the units the caps count.
    var setAsideUsage: OutboxCaps.Usage { setAside.usage }

    /// What the sealed batches hold, in the units the caps count.
    var sealedUsage: OutboxCaps.Usage { sealed.usage }

    /// Empties the queue (the opt-out); returns what it held.
    mutating func removeAll() -> (sealed: [StoredBatch], setAside: [StoredBatch]) {
        heldInMemoryEvents = 0
        return (sealed.removeAll(), setAside.removeAll())
    }

    // MARK: The caps

    /// Drops the oldest set-aside batches, then the oldest sealed ones, while the outbox is over
    /// a cap. Set-aside batches go first: the ingest refused them, and a flood of them (an edge
    /// answering 400 for hours) must not push out every new event.
    ///
    /// An episode starts with the first eviction (its line is returned once) and ends once the
    /// outbox is back under 90 % of its caps, so an outbox hovering at its cap logs one line,
    /// not one per batch.
    /// - Parameters:
    ///   - caps: The limits.
    ///   - unevictable: What the open journal and the journals pending a flush hold: counted,
    ///     never evicted.
    /// - Returns: What to delete and count; evicted sealed batches are remembered for a late 202.
    mutating func enforce(_ caps: OutboxCaps, unevictable: OutboxCaps.Usage) -> Eviction {
        let usage = unevictable + setAsideUsage + sealedUsage
        // The common case, checked from the running totals without looking at any batch.
        let count = caps.isExceeded(by: usage)
            ? caps.evictionCount(usage: usage, evictable: [setAside, sealed].joined().lazy.map(\.usage)) : 0
        guard count > 0 else {
            if caps.isComfortablyUnder(usage) { evictionEpisodeLogged = false }
            return Eviction()
        }
        let refusedCount = min(count, setAside.count)
        var eviction = Eviction(refused: setAside.removeOldest(refusedCount), evicted: sealed.removeOldest(count - refusedCount))
        heldInMemoryEvents -= eviction.evicted.reduce(0) { $0 + $1.heldEvents }
        for batch in eviction.evicted { noteEvicted(batch) }
        if !evictionEpisodeLogged {
            evictionEpisodeLogged = true
            let events = eviction.refusedEvents + eviction.evictedEvents
            eviction.firstLine = "The outbox reached its cap (\(caps.maxEvents) events, \(caps.maxBytes / 1_000_000) MB or \(caps.maxFiles) files); dropped the oldest \(count) batches (\(events) events). More are dropped, and counted, until sending catches up."
        }
        return eviction
    }

    /// The events of an evicted batch whose 202 came after its eviction, taken out of the
    /// record: they were delivered, not dropped. Nil for a batch not evicted lately.
    mutating func takeRecentlyEvicted(_ id: UUID) -> Int? {
        guard let index = recentlyEvicted.firstIndex(where: { $0.id == id }) else { return nil }
        return recentlyEvicted.remove(at: index).events
    }

    /// Remembers an evicted sealed batch for a while, bounded by ``recentlyEvictedLimit``.
    private mutating func noteEvicted(_ batch: StoredBatch) {
        recentlyEvicted.append((batch.id, batch.eventCount))
        if recentlyEvicted.count > Self.recentlyEvictedLimit { recentlyEvicted.removeFirst() }
    }
}

extension OutboxCaps.Usage {
    /// Both usages together.
    static func + (lhs: OutboxCaps.Usage, rhs: OutboxCaps.Usage) -> OutboxCaps.Usage {
        OutboxCaps.Usage(events: lhs.events + rhs.events, bytes: lhs.bytes + rhs.bytes, files: lhs.files + rhs.files)
    }
}
