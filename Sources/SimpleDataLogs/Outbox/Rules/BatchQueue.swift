import Foundation

/// Batches oldest first (``StoredBatch/isOlder(_:_:)``), with the operations the outbox and the
/// uploader make on their queues, each costing time independent of the queue's length in the
/// ways the queues are used:
/// - adding a batch newer than every other (a seal, and every batch recovery or adoption finds,
///   in name order) is an append; an older one (a split's halves) finds its place by binary search;
/// - taking out the oldest (a 202, an eviction) moves a start index, not the whole array;
/// - whether an id is queued is a hash lookup, so a second word that a batch left costs nothing;
/// - the events, bytes and files the batches hold are kept as a running total for the caps.
///
/// Until issue 23 the queues were plain arrays searched from the front for every insert and
/// removal, which made launch quadratic in batch files (100,000 files: more than five minutes
/// before the first request). `BatchQueueTests` checks the order and the totals; the launch's
/// cost is checked end to end by `LaunchScaleTests`.
struct BatchQueue: Sendable, RandomAccessCollection, Equatable, ExpressibleByArrayLiteral {
    /// The batches; those before `head` have left and wait to be compacted away.
    private var storage: [StoredBatch] = []
    private var head = 0
    /// How many queued batches carry each id: one, unless an earlier version drew one id twice
    /// (issue 23, item 1); such batches are queued and sent each, as before.
    private var ids: [UUID: Int] = [:]
    /// What the queued batches hold, in the units the caps count.
    private(set) var usage = OutboxCaps.Usage()
    /// How many queued batches are held in memory because the disk refused them.
    private(set) var heldInMemoryCount = 0

    /// An empty queue.
    init() {}

    /// A queue of `batches`, put in age order.
    init(arrayLiteral batches: StoredBatch...) {
        for batch in batches { insert(batch) }
    }

    // MARK: RandomAccessCollection (positions count from the oldest batch, 0)

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - head }
    subscript(position: Int) -> StoredBatch { storage[head + position] }

    static func == (lhs: BatchQueue, rhs: BatchQueue) -> Bool { lhs.elementsEqual(rhs) }

    // MARK: Changes

    /// Whether a batch with this id is queued.
    func contains(id: UUID) -> Bool { ids[id] != nil }

    /// The queued batch with this id.
    func batch(_ id: UUID) -> StoredBatch? {
        guard ids[id] != nil, let position = position(of: id) else { return nil }
        return self[position]
    }

    /// Adds a batch where its age puts it: after every batch not newer than it.
    mutating func insert(_ batch: StoredBatch) {
        ids[batch.id, default: 0] += 1
        if let last = storage.last, head < storage.count, StoredBatch.isOlder(batch, last) {
            // Binary search for the first batch newer than this one, among the live ones.
            var low = head
            var high = storage.count
            while low < high {
                let middle = (low + high) / 2
                if StoredBatch.isOlder(batch, storage[middle]) { high = middle } else { low = middle + 1 }
            }
            storage.insert(batch, at: low)
        } else {
            storage.append(batch)
        }
        count(batch, sign: 1)
    }

    /// Takes the batch with this id out; nil when it is not queued.
    @discardableResult
    mutating func remove(_ id: UUID) -> StoredBatch? {
        guard ids[id] != nil, let position = position(of: id) else { return nil }
        let batch = self[position]
        forget(id)
        count(batch, sign: -1)
        if position == 0 {
            head += 1
            compactIfWorthIt()
        } else {
            storage.remove(at: head + position)
        }
        return batch
    }

    /// Takes the `k` oldest batches out.
    mutating func removeOldest(_ k: Int) -> [StoredBatch] {
        let taken = Array(storage[head..<(head + Swift.min(k, count))])
        for batch in taken {
            forget(batch.id)
            count(batch, sign: -1)
        }
        head += taken.count
        compactIfWorthIt()
        return taken
    }

    /// Replaces the queued batch of the same id in place (a held batch that became a file).
    mutating func replace(_ batch: StoredBatch) {
        guard ids[batch.id] != nil, let position = position(of: batch.id) else { return }
        count(self[position], sign: -1)
        storage[head + position] = batch
        count(batch, sign: 1)
    }

    /// Empties the queue; returns what it held, oldest first.
    mutating func removeAll() -> [StoredBatch] {
        defer { self = BatchQueue() }
        return Array(self)
    }

    // MARK: Helpers

    /// Where the batch with this id is, searched from the oldest: the batches that leave (a
    /// 202, an eviction) are almost always the oldest few.
    private func position(of id: UUID) -> Int? {
        var index = head
        while index < storage.count {
            if storage[index].id == id { return index - head }
            index += 1
        }
        return nil
    }

    private mutating func forget(_ id: UUID) {
        if let copies = ids[id], copies > 1 { ids[id] = copies - 1 } else { ids[id] = nil }
    }

    private mutating func count(_ batch: StoredBatch, sign: Int) {
        usage.events += sign * batch.eventCount
        usage.bytes += sign * batch.byteCount
        usage.files += sign
        if batch.heldInMemory != nil { heldInMemoryCount += sign }
    }

    /// Drops the slots of batches that left once they are at least half the array, so the
    /// memory stays proportional to the queue and each slot is moved at most once per halving.
    private mutating func compactIfWorthIt() {
        guard head > 0 else { return }
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}
