import Testing
@testable import SimpleDataLogs

/// Where the intake log's records go (``IntakeLogRing``), synchronously.
@Suite("Intake log: the ring of slots")
struct IntakeLogRingTests {
    @Test("records go one after another, skip to slot 0 when the end is too near, and never overwrite a held record")
    func placement() {
        var ring = IntakeLogRing(slotCount: 10)
        #expect(ring.claim(slots: 4, sequence: 1) == 0)
        #expect(ring.claim(slots: 4, sequence: 2) == 4)
        // 2 slots left before the end, 3 wanted; slots 0–3 are held by record 1: full.
        #expect(ring.claim(slots: 3, sequence: 3) == nil)
        ring.release(through: 1)
        // Now slots 0–3 are free: the record skips the last two slots and starts at 0.
        #expect(ring.claim(slots: 3, sequence: 3) == 0)
        // Wrapped: free is [3, 4) only.
        #expect(ring.claim(slots: 2, sequence: 4) == nil)
        #expect(ring.claim(slots: 1, sequence: 4) == 3)
        // Full: head meets the oldest held record.
        #expect(ring.claim(slots: 1, sequence: 5) == nil)
        ring.release(through: 4)
        #expect(ring.held.isEmpty)
        #expect(ring.claim(slots: 10, sequence: 5) == 0, "empty: the whole ring")
    }

    @Test("a record ending exactly at the last slot sends the next to slot 0; a record larger than the ring or of no slots is refused")
    func edges() {
        var ring = IntakeLogRing(slotCount: 6)
        #expect(ring.claim(slots: 6, sequence: 1) == 0)
        #expect(ring.head == 0)
        #expect(ring.claim(slots: 1, sequence: 2) == nil, "the whole ring is held")
        ring.release(through: 1)
        #expect(ring.claim(slots: 7, sequence: 2) == nil)
        #expect(ring.claim(slots: 0, sequence: 2) == nil)
        #expect(ring.claim(slots: 2, sequence: 2) == 0)
    }

    @Test("a long run of appends and releases keeps exactly the unreleased records, in order, and its memory bounded")
    func longRun() {
        var ring = IntakeLogRing(slotCount: 1_000)
        var sequence: UInt64 = 0
        for step in 0..<100_000 {
            sequence += 1
            let slots = 1 + step % 7
            guard ring.claim(slots: slots, sequence: sequence) != nil else {
                Issue.record("full at \(sequence) with \(ring.held.count) held")
                return
            }
            if sequence > 50 { ring.release(through: sequence - 50) }
        }
        #expect(ring.held.map(\.sequence) == Array((sequence - 49)...sequence))
        #expect(ring.live.count < 200, "released entries are dropped: \(ring.live.count)")
    }
}

/// The ring keeps what recovery folds the identity from: the records from the newest checkpoint
/// at or below the mark on.
@Suite("Intake log: the ring keeps the newest checkpoint at or below the mark")
struct IntakeLogRingCheckpointTests {
    @Test("a release frees only the records before the newest checkpoint it covers")
    func keepsFromTheCheckpoint() {
        var ring = IntakeLogRing(slotCount: 100)
        _ = ring.claim(slots: 1, sequence: 1, isCheckpoint: true)
        for sequence in 2...5 { _ = ring.claim(slots: 1, sequence: UInt64(sequence)) }
        _ = ring.claim(slots: 1, sequence: 6, isCheckpoint: true)
        for sequence in 7...9 { _ = ring.claim(slots: 1, sequence: UInt64(sequence)) }
        ring.release(through: 5)
        #expect(ring.held.map(\.sequence) == Array(1...9), "no checkpoint above 1 is covered: all stay")
        ring.release(through: 8)
        #expect(ring.held.map(\.sequence) == [6, 7, 8, 9], "from the checkpoint at 6 on")
        ring.release(through: 9)
        #expect(ring.held.first?.sequence == 6)
    }

    @Test("a writer that puts a checkpoint every eighth of the ring never fills it while the mark keeps up")
    func steadyState() {
        var ring = IntakeLogRing(slotCount: 64)
        var sequence: UInt64 = 0
        var sinceCheckpoint = 8
        for _ in 0..<10_000 {
            sequence += 1
            let isCheckpoint = sinceCheckpoint >= 8
            #expect(ring.claim(slots: 1, sequence: sequence, isCheckpoint: isCheckpoint) != nil)
            sinceCheckpoint = isCheckpoint ? 0 : sinceCheckpoint + 1
            ring.release(through: sequence)
            #expect(ring.held.count <= 10)
        }
    }
}
