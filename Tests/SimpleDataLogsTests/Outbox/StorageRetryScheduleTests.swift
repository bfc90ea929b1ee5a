import Foundation
import Testing
@testable import SimpleDataLogs

/// The rules of an outbox that runs without its folder, on values alone: when the folder is tried
/// again, what memory holds, and how a folder taken late numbers it.
@Suite("Outbox: a folder tried again, and what memory holds", .stuckTestLimit)
struct StorageRetryScheduleTests {
    @Test("tries come after 1 s, then doubling up to once a minute, and start over after a success")
    func schedule() {
        var schedule = StorageRetrySchedule()
        let delays = (0..<9).map { _ in schedule.failed() }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(StorageRetrySchedule.delay(afterFailures: Int.max) == .seconds(60), "years without a folder never overflow")
        schedule.succeeded()
        #expect(schedule.failed() == .seconds(1))
    }

    static func held(_ sequence: Int, events: Int = 10) -> StoredBatch {
        let payloads = (0..<events).map { _ in Array("{}".utf8) }
        let batch = SealedBatch(id: UniqueID.random(), sequence: sequence, path: "r", payloads: payloads)
        return StoredBatch(id: batch.id, sequence: sequence, path: "r", eventCount: events, byteCount: 100, heldInMemory: batch)
    }

    static func file(_ sequence: Int, events: Int = 10) -> StoredBatch {
        StoredBatch(id: UniqueID.random(), sequence: sequence, path: "r", eventCount: events, byteCount: 100)
    }

    @Test("the queue counts the events of batches held in memory through every change: insert, write, remove, evict, opt-out")
    func heldEventsCounted() {
        var queue = OutboxQueue()
        let first = Self.held(1, events: 10)
        let second = Self.held(2, events: 20)
        queue.insertSealed(first)
        queue.insertSealed(second)
        queue.insertSealed(Self.file(3, events: 30))
        #expect(queue.heldInMemoryEvents == 30)
        var written = first
        written.heldInMemory = nil
        queue.replaceSealed(written)
        #expect(queue.heldInMemoryEvents == 20, "a held batch that became a file is on disk")
        _ = queue.removeSealed(second.id)
        #expect(queue.heldInMemoryEvents == 0)
        queue.insertSealed(Self.held(4, events: 40))
        let eviction = queue.enforce(OutboxCaps(maxEvents: 50, maxBytes: 1 << 30, maxFiles: 100), unevictable: OutboxCaps.Usage())
        #expect(eviction.evictedEvents == 40 && queue.heldInMemoryEvents == 40, "the two oldest (files) go first")
        _ = queue.removeAll()
        #expect(queue.heldInMemoryEvents == 0)
    }

    @Test("a folder taken late: held batches and the open batch move above what the folder holds, in their order; files keep their numbers")
    func heldBatchesMoveUp() {
        var queue = OutboxQueue()
        let heldOne = Self.held(0)
        let heldTwo = Self.held(1)
        let onDisk = Self.file(5)
        for batch in [heldOne, heldTwo, onDisk] { queue.insertSealed(batch) }
        queue.moveHeldBatches(up: 10)
        #expect(queue.sealed.map(\.sequence) == [5, 10, 11])
        #expect(queue.sealed.map(\.id) == [onDisk.id, heldOne.id, heldTwo.id], "ids stay: the uploader's copy finds them")
        #expect(queue.sealed.compactMap(\.heldInMemory?.sequence) == [10, 11], "the batch itself carries the new number to its file")

        var open = OpenBatch()
        open.startAtNextSequence()
        _ = open.append(Array("{}".utf8), policy: SealPolicy())
        let before = (open.sequence, open.nextSequence)
        open.moveUp(by: 10)
        #expect(open.sequence == before.0 + 10 && open.nextSequence == before.1 + 10 && open.payloads.count == 1)
    }
}
