/// How many chunks the sessions stage has handed to the journal and the journal has not taken
/// yet: the journal's one look ahead.
///
/// Why: full batches are made durable in groups (one flush of the disk for many batches). While
/// another chunk is already waiting, the journal keeps its full batches pending and flushes them
/// with the next chunk's, so a steady stream pays one flush per several chunks instead of one
/// per chunk. An `AsyncStream` cannot say whether it holds elements, so the two stages count:
/// the sender adds before it yields, the journal takes after it receives, and the count never
/// drifts (it is not a count of events, which stages may drop or create).
struct QueuedChunks: Sendable {
    private let count = Locked(0)

    /// Called by the sender just before it yields a chunk.
    func add() { count.withLock { $0 += 1 } }

    /// Called by the journal for each chunk it receives.
    func take() { count.withLock { $0 -= 1 } }

    /// Whether a chunk is already waiting for the journal.
    var isEmpty: Bool { count.withLock { $0 <= 0 } }
}
