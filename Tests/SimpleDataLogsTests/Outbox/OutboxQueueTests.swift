import Foundation
import Testing
@testable import SimpleDataLogs

/// What the outbox holds and what the caps drop, on the queue value alone: no files, no actor.
@Suite("Outbox: the queue and the caps", .stuckTestLimit)
struct OutboxQueueTests {
    static func batch(_ sequence: Int, path: String = "r", events: Int = 10, bytes: Int = 1_000) -> StoredBatch {
        StoredBatch(id: UUID(), sequence: sequence, path: path, eventCount: events, byteCount: bytes)
    }

    @Test("sealed batches stay oldest first (sequence, then split path: left half before right) and count as seals")
    func ordering() {
        var queue = OutboxQueue()
        for batch in [Self.batch(3), Self.batch(1), Self.batch(2, path: "r1"), Self.batch(2, path: "r0"), Self.batch(4)] {
            queue.insertSealed(batch)
        }
        #expect(queue.sealed.map { "\($0.sequence)\($0.path)" } == ["1r", "2r0", "2r1", "3r", "4r"])
        #expect(queue.sealsSinceLaunch == 5)
        let second = queue.sealed[1]
        #expect(queue.removeSealed(second.id) == second && queue.sealedBatch(second.id) == nil)
        #expect(queue.removeSealed(second.id) == nil)
        #expect(queue.sealsSinceLaunch == 5, "taking a batch out is not a seal")
    }

    @Test("caps: set-aside batches go first, then the oldest sealed; the open journal counts but is never dropped")
    func evictionOrder() {
        var queue = OutboxQueue()
        let caps = OutboxCaps(maxEvents: 100, maxBytes: 1 << 30, maxFiles: 1_000)
        let refused = [Self.batch(1), Self.batch(2)]
        for batch in refused { queue.insertSetAside(batch) }
        let sealed = (3..<10).map { Self.batch($0) }
        for batch in sealed { queue.insertSealed(batch) }
        // 2 set aside + 7 sealed = 90 events, and 25 in the open journal: 115, over 100 by 15.
        let open = OutboxCaps.Usage(events: 25, bytes: 2_000, files: 1)
        let eviction = queue.enforce(caps, unevictable: open)
        #expect(eviction.refused == refused && eviction.evicted.isEmpty, "20 events of set-aside batches bring it to 95")
        #expect(eviction.refusedEvents == 20 && eviction.firstLine != nil)
        #expect(queue.setAside.isEmpty && queue.sealed.count == 7)

        let more = queue.enforce(caps, unevictable: OutboxCaps.Usage(events: 45, bytes: 0, files: 1))
        #expect(more.evicted == Array(sealed.prefix(2)) && more.refused.isEmpty, "115 → 95: the two oldest sealed")
        #expect(more.firstLine == nil, "the same episode: no second line")

        let everything = queue.enforce(caps, unevictable: OutboxCaps.Usage(events: 500, bytes: 0, files: 1))
        #expect(everything.evicted.count == 5 && queue.sealed.isEmpty, "all that can go goes; the journal stays")
    }

    @Test("an episode ends only under 90 % of every cap, so an outbox hovering at its cap logs once")
    func episodes() {
        var queue = OutboxQueue()
        let caps = OutboxCaps(maxEvents: 1_000, maxBytes: 1 << 30, maxFiles: 10)
        for sequence in 0..<11 { queue.insertSealed(Self.batch(sequence)) }
        #expect(queue.enforce(caps, unevictable: OutboxCaps.Usage()).firstLine != nil)
        #expect(queue.sealed.count == 10)
        queue.insertSealed(Self.batch(20))
        #expect(queue.enforce(caps, unevictable: OutboxCaps.Usage()).firstLine == nil, "hovering at the cap: the same episode")
        for batch in queue.sealed.prefix(2) { _ = queue.removeSealed(batch.id) }
        #expect(queue.enforce(caps, unevictable: OutboxCaps.Usage()).isEmpty, "8 of 10 files: under 90 %, the episode ends")
        for sequence in 30..<33 { queue.insertSealed(Self.batch(sequence)) }
        #expect(queue.enforce(caps, unevictable: OutboxCaps.Usage()).firstLine != nil, "a new episode logs again")
    }

    @Test("an evicted batch is remembered for a late 202, once, and only the latest 64 are")
    func recentlyEvicted() {
        var queue = OutboxQueue()
        let caps = OutboxCaps(maxEvents: 1_000, maxBytes: 1 << 30, maxFiles: 1)
        var evicted: [StoredBatch] = []
        for sequence in 0..<70 {
            queue.insertSealed(Self.batch(sequence, events: sequence + 1))
            evicted += queue.enforce(caps, unevictable: OutboxCaps.Usage()).evicted
        }
        #expect(evicted.count == 69)
        #expect(queue.recentlyEvicted.count == OutboxQueue.recentlyEvictedLimit)
        #expect(queue.takeRecentlyEvicted(evicted[0].id) == nil, "the oldest were forgotten")
        #expect(queue.takeRecentlyEvicted(evicted[68].id) == 69)
        #expect(queue.takeRecentlyEvicted(evicted[68].id) == nil, "taken once")
    }

    @Test("usage sums what each part holds; the opt-out empties both lists")
    func usageAndOptOut() {
        var queue = OutboxQueue()
        queue.insertSealed(Self.batch(1, events: 5, bytes: 500))
        queue.insertSealed(Self.batch(2, events: 7, bytes: 700))
        queue.insertSetAside(Self.batch(0, events: 3, bytes: 300))
        #expect(queue.sealedUsage == OutboxCaps.Usage(events: 12, bytes: 1_200, files: 2))
        #expect(queue.setAsideUsage == OutboxCaps.Usage(events: 3, bytes: 300, files: 1))
        let removed = queue.removeAll()
        #expect(removed.sealed.count == 2 && removed.setAside.count == 1)
        #expect(queue.sealed.isEmpty && queue.setAside.isEmpty)
    }
}
