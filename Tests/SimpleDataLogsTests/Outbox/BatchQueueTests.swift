import Foundation
import Testing
@testable import SimpleDataLogs

/// The age-ordered queue under the outbox's and the uploader's queues, on the value alone.
@Suite("Outbox: the batch queue keeps age order and its totals at any length", .stuckTestLimit)
struct BatchQueueTests {
    static func batch(_ sequence: Int, path: String = "r", events: Int = 10, bytes: Int = 1_000) -> StoredBatch {
        StoredBatch(id: UUID(), sequence: sequence, path: path, eventCount: events, byteCount: bytes)
    }

    @Test("batches added in any order come out oldest first; equal ages keep their arrival order")
    func order() {
        var queue = BatchQueue()
        let twin = Self.batch(2)
        for batch in [Self.batch(5), Self.batch(1), Self.batch(3, path: "r1"), Self.batch(3, path: "r0"), Self.batch(2), twin, Self.batch(9)] {
            queue.insert(batch)
        }
        #expect(queue.map { "\($0.sequence)\($0.path)" } == ["1r", "2r", "2r", "3r0", "3r1", "5r", "9r"])
        #expect(queue[2] == twin, "a batch of the same age goes after the ones already there")
    }

    @Test("taking out the oldest, the newest, one in the middle and one not queued; the totals follow")
    func removals() {
        var queue = BatchQueue()
        let batches = (0..<200).map { Self.batch($0, events: $0 + 1, bytes: 10) }
        for batch in batches { queue.insert(batch) }
        #expect(queue.usage == OutboxCaps.Usage(events: 20_100, bytes: 2_000, files: 200))
        // The oldest hundred, one at a time, as 202s take them: the slots are compacted away.
        for batch in batches.prefix(100) { #expect(queue.remove(batch.id) == batch) }
        #expect(queue.remove(batches[150].id) == batches[150] && queue.remove(batches[199].id) == batches[199])
        #expect(queue.remove(batches[0].id) == nil && queue.remove(UUID()) == nil)
        #expect(queue.count == 98 && queue.first == batches[100] && queue.last == batches[198])
        #expect(queue.batch(batches[120].id) == batches[120] && !queue.contains(id: batches[150].id))
        #expect(queue.usage.files == 98 && queue.usage.events == (101...199).reduce(0, +) - 151)
        // A split's halves take the parent's place, at the front of a queue whose front has moved.
        let left = Self.batch(100, path: "r0")
        queue.insert(left)
        #expect(queue.first == batches[100] && queue[1] == left)
        #expect(queue.removeOldest(3) == [batches[100], left, batches[101]] && queue.first == batches[102])
        #expect(queue.removeAll().count == 96 && queue.isEmpty && queue.usage == OutboxCaps.Usage())
    }

    @Test("two batches with one id (an earlier version drew ids that repeated) are both queued and leave one at a time")
    func repeatedIDs() {
        var queue = BatchQueue()
        let first = Self.batch(1)
        var second = Self.batch(2)
        second.id = first.id
        queue.insert(first)
        queue.insert(second)
        #expect(queue.count == 2)
        #expect(queue.remove(first.id) == first && queue.contains(id: first.id))
        #expect(queue.remove(first.id) == second && !queue.contains(id: first.id))
    }

    @Test("a held batch that becomes a file is replaced in place, and the held count follows")
    func replace() {
        var queue = BatchQueue()
        var held = Self.batch(1)
        held.heldInMemory = SealedBatch(id: held.id, sequence: 1, path: "r", payloads: [[1]])
        queue.insert(held)
        queue.insert(Self.batch(2))
        #expect(queue.heldInMemoryCount == 1)
        var written = held
        written.heldInMemory = nil
        written.byteCount = 500
        queue.replace(written)
        #expect(queue.heldInMemoryCount == 0 && queue.first == written && queue.usage.bytes == 1_500)
    }
}
