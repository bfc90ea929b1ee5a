/// Where the next record of the intake log goes: a ring of slots, with the records not yet
/// released (not yet safe in the journal) kept whole. A pure value, so every placement rule is
/// tested without a file.
///
/// A record never wraps: one that does not fit before the end starts again at slot 0, and the
/// slots it skipped are left as they are (stale, told apart by their sequence numbers). A record
/// never overwrites one that is not released: then the log is full, and the caller's backlog
/// rules apply (skip and count, or wait).
package struct IntakeLogRing: Sendable, Equatable {
    /// One record not yet released.
    package struct Live: Sendable, Equatable {
        package var sequence: UInt64
        package var start: Int
        package var slots: Int
    }

    package let slotCount: Int
    /// The slot the next record starts at, if it fits there.
    package private(set) var head = 0
    /// The records not yet released, oldest first.
    package private(set) var live: [Live] = []
    /// Index of the oldest entry of `live` still held (entries before it are released and
    /// dropped in bulk, so a release is O(1) amortized).
    private var oldest = 0

    package init(slotCount: Int) {
        precondition(slotCount > 0, "an intake log needs at least one slot")
        self.slotCount = slotCount
    }

    /// The records still held.
    package var held: ArraySlice<Live> { live[oldest...] }

    /// Claims `slots` slots for the record `sequence` and returns where it starts, or nil when
    /// they cannot be had without overwriting a held record (or the record is larger than the
    /// whole ring).
    package mutating func claim(slots: Int, sequence: UInt64) -> Int? {
        guard slots >= 1, slots <= slotCount else { return nil }
        let start: Int
        if let tail = held.first?.start {
            if head > tail {
                // Held records run from tail to head: free are [head, end) and [0, tail).
                if head + slots <= slotCount {
                    start = head
                } else if slots <= tail {
                    start = 0
                } else {
                    return nil
                }
            } else {
                // Wrapped (or full, head == tail): free is [head, tail) only.
                guard head + slots <= tail else { return nil }
                start = head
            }
        } else {
            start = head + slots <= slotCount ? head : 0
        }
        live.append(Live(sequence: sequence, start: start, slots: slots))
        head = start + slots == slotCount ? 0 : start + slots
        return start
    }

    /// Releases every held record up to and including `sequence` (they are in the journal).
    package mutating func release(through sequence: UInt64) {
        while oldest < live.count, live[oldest].sequence <= sequence { oldest += 1 }
        // Drop the released prefix once it is the larger part, so memory stays bounded.
        if oldest > 64, oldest * 2 > live.count {
            live.removeFirst(oldest)
            oldest = 0
        }
    }
}
