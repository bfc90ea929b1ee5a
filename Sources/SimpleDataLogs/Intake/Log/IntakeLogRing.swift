/// Where the next record of the intake log goes: a ring of slots, with the records not yet
/// released (not yet safe in the journal) kept whole. A pure value, so every placement rule is
/// tested without a file.
///
/// A record never wraps: one that does not fit before the end starts again at slot 0, and the
/// slots it skipped are left as they are (stale, told apart by their sequence numbers). A record
/// never overwrites one that is not released: then the log is full, and the caller's backlog
/// rules apply (skip and count, or wait).
///
/// A released record is kept too while recovery may still need it: recovery starts at the newest
/// checkpoint at or below the released mark (it holds the identity then in force) and reads the
/// identity calls between it and the mark. So a release frees only the records before that
/// checkpoint; the writer puts a checkpoint every eighth of the ring, which bounds what is kept.
package struct IntakeLogRing: Sendable, Equatable {
    /// One record not yet released.
    package struct Live: Sendable, Equatable {
        package var sequence: UInt64
        package var start: Int
        package var slots: Int
        /// A checkpoint of the identity: recovery can start here.
        package var isCheckpoint = false

        package init(sequence: UInt64, start: Int, slots: Int, isCheckpoint: Bool = false) {
            self.sequence = sequence
            self.start = start
            self.slots = slots
            self.isCheckpoint = isCheckpoint
        }
    }

    package let slotCount: Int
    /// The slot the next record starts at, if it fits there.
    package private(set) var head = 0
    /// The records not yet released, oldest first.
    package private(set) var live: [Live] = []
    /// Index of the oldest entry of `live` still held (entries before it are released and
    /// dropped in bulk, so a release is O(1) amortized).
    private var oldest = 0
    /// Entries of `live` before this index are at or below the last release's mark.
    private var scanned = 0
    /// Index in `live` of the newest checkpoint at or below the last release's mark.
    private var newestCheckpoint: Int?
    /// Whether any record was a checkpoint: a log without them frees everything released.
    private var hasCheckpoints = false

    package init(slotCount: Int) {
        precondition(slotCount > 0, "an intake log needs at least one slot")
        self.slotCount = slotCount
    }

    /// The records still held.
    package var held: ArraySlice<Live> { live[oldest...] }

    /// How many slots a record may take at `head`, where the next one starts if it fits there:
    /// up to the end of the ring or the oldest held record. A record of at most this many slots
    /// is claimed at `head` (``claim(slots:sequence:isCheckpoint:)``); a larger one goes to
    /// slot 0, or does not fit.
    package var roomAtHead: Int {
        // Read in place: `held.first` made a slice, a retain and a release on track()'s path.
        guard oldest < live.count, head <= live[oldest].start else { return slotCount - head }
        return live[oldest].start - head
    }

    /// Claims `slots` slots at `head` for the record `sequence`, or nothing when they are more
    /// than ``roomAtHead`` (a record written in place before it was measured cannot move).
    package mutating func claimAtHead(slots: Int, sequence: UInt64) -> Bool {
        guard slots >= 1, slots <= roomAtHead else { return false }
        // What `claim` does within the room at the head, without deciding the place again
        // (track()'s path; callgrind: 114 -> 80 instructions a claim; IntakeLogUnmeasuredTests
        // holds the two equal).
        live.append(Live(sequence: sequence, start: head, slots: slots))
        head = head + slots == slotCount ? 0 : head + slots
        return true
    }

    /// Claims `slots` slots for the record `sequence` and returns where it starts, or nil when
    /// they cannot be had without overwriting a held record (or the record is larger than the
    /// whole ring).
    package mutating func claim(slots: Int, sequence: UInt64, isCheckpoint: Bool = false) -> Int? {
        guard slots >= 1, slots <= slotCount else { return nil }
        let start: Int
        if slots <= roomAtHead {
            start = head
        } else if oldest < live.count {
            // Too near the end: slot 0, if the held records run from a tail past the head
            // (free are [head, end) and [0, tail)) and the record fits before that tail.
            let tail = live[oldest].start
            guard head > tail, slots <= tail else { return nil }
            start = 0
        } else {
            start = 0
        }
        live.append(Live(sequence: sequence, start: start, slots: slots, isCheckpoint: isCheckpoint))
        if isCheckpoint { hasCheckpoints = true }
        head = start + slots == slotCount ? 0 : start + slots
        return start
    }

    /// Records up to and including `sequence` are in the journal: frees those before the newest
    /// checkpoint among them (a log without checkpoints frees them all).
    package mutating func release(through sequence: UInt64) {
        if scanned < oldest { scanned = oldest }
        while scanned < live.count, live[scanned].sequence <= sequence {
            if live[scanned].isCheckpoint { newestCheckpoint = scanned }
            scanned += 1
        }
        if let newestCheckpoint {
            oldest = max(oldest, newestCheckpoint)
        } else if !hasCheckpoints {
            oldest = scanned
        }
        // Drop the released prefix once it is the larger part, so memory stays bounded.
        if oldest > 64, oldest * 2 > live.count {
            live.removeFirst(oldest)
            scanned -= oldest
            newestCheckpoint = newestCheckpoint.map { $0 - oldest }
            oldest = 0
        }
    }
}
