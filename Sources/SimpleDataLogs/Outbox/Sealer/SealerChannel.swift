import Dispatch

/// The link between the outbox (the journal thread) and its sealer: jobs one way (a
/// ``HandOffQueue`` of ``SealerJob``s), outcomes the other (``OutboxInput/sealed(_:)`` messages
/// in the outbox's own input), and a count of finished jobs that the outbox can wait on.
///
/// The sealer never waits for the outbox: it posts its outcomes into the outbox's input, which
/// the outbox's loop drains between chunks. The outbox waits for the sealer only where an order
/// needs it (a barrier, `flush`, the opt-out, `close`), by blocking its own thread, never a
/// thread of the cooperative pool. So neither can deadlock the other.
final class SealerChannel: Sendable {
    private struct State: Sendable {
        var handedOff = 0
        var finished = 0
        var waiters = Waiters()
        /// Empty files in the area's `tmp/`, ready to become journals (``takeSpare()``).
        var spares: [String] = []
    }

    /// How many spare journals the sealer keeps ready: a burst of seals takes one each.
    static let maxSpares = 64

    /// How many spares the sealer makes fresh (empty new files) after a group of seals when too
    /// few retired files came back to recycle: the journal thread then never allocates an inode
    /// for a journal. At batches of 50, creating the journal file (ext4 scanning for a free inode
    /// past recently deleted ones) was 46% of the journal thread's samples (`perf`, issue 24).
    static let freshSpares = 64

    /// What the sealer takes, in order; finished by the pipeline after the outbox closes.
    let jobs = HandOffQueue<SealerJob>()
    private let state = Locked(State())
    /// The outbox's input, where the outcomes go.
    private let outbox: HandOffQueue<OutboxInput>

    init(outbox: HandOffQueue<OutboxInput>) {
        self.outbox = outbox
    }

    // MARK: The outbox's side

    /// Hands jobs to the sealer, in order.
    func hand(_ job: SealerJob) {
        state.withLock { $0.handedOff += 1 }
        jobs.push(job)
    }

    /// Hands a job over without waking the sealer: memory to free (``SealerJob/discard(_:)``),
    /// which goes with the next seal or delete, and the seals of one outbox operation, which
    /// wakes the sealer once at its end. Saves a thread wake-up per job.
    func handQuietly(_ job: SealerJob) {
        state.withLock { $0.handedOff += 1 }
        jobs.pushQuietly(job)
    }

    /// An empty spare file to rename into place as the next journal, if the sealer made one.
    func takeSpare() -> String? {
        state.withLock { $0.spares.popLast() }
    }

    /// Forgets the spares (the opt-out deletes everything in `tmp/`, them included).
    func dropSpares() {
        state.withLock { $0.spares.removeAll() }
    }

    /// Blocks the calling thread (the outbox's own) until every job handed off so far is done,
    /// so that their outcomes are all waiting in the outbox's input.
    @available(*, noasync, message: "Blocks the calling thread: only the outbox's own thread, in a synchronous step, may wait so.")
    func blockUntilCaughtUp() {
        let semaphore = DispatchSemaphore(value: 0)
        let done: Bool = state.withLock { state in
            guard state.finished < state.handedOff else { return true }
            state.waiters.add(thread: semaphore, for: state.handedOff)
            return false
        }
        guard !done else { return }
        jobs.wake() // the quiet jobs too, which woke nobody
        semaphore.wait()
    }

    /// Blocks the calling thread (the outbox's own) until the sealer finishes at least one more
    /// group of jobs, or at once when it has none left: the journal's back-pressure, which
    /// waits for room, not for the sealer to run dry.
    @available(*, noasync, message: "Blocks the calling thread: only the outbox's own thread, in a synchronous step, may wait so.")
    func blockUntilProgress() {
        let semaphore = DispatchSemaphore(value: 0)
        let done: Bool = state.withLock { state in
            guard state.finished < state.handedOff else { return true }
            state.waiters.add(thread: semaphore, for: state.finished + 1)
            return false
        }
        guard !done else { return }
        jobs.wake() // the quiet jobs too, which woke nobody
        semaphore.wait()
    }

    /// Suspends the calling task until every job handed off so far is done: `flush()` returns
    /// only once the files of what it delivered are deleted.
    func caughtUp() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done: Bool = state.withLock { state in
                guard state.finished < state.handedOff else { return true }
                state.waiters.add(task: continuation, for: state.handedOff)
                return false
            }
            if done { continuation.resume() } else { jobs.wake() }
        }
    }

    // MARK: The sealer's side

    /// Whether the outbox could use another spare journal.
    var wantsSpare: Bool { state.withLock { $0.spares.count < Self.maxSpares } }

    /// Offers an empty spare file in `tmp/`.
    func addSpare(_ path: String) {
        state.withLock { $0.spares.append(path) }
    }

    /// How many fresh spares to make now to keep ``freshSpares`` ready.
    var sparesWanted: Int { state.withLock { max(0, Self.freshSpares - $0.spares.count) } }

    /// Records the end of `count` jobs: posts their seal outcomes to the outbox's input first
    /// (so that whoever sees the jobs counted finds the outcomes there), then counts them and
    /// resumes whoever waits for them.
    func finished(_ count: Int, outcomes: [SealOutcome]) {
        if !outcomes.isEmpty { outbox.push(.sealed(outcomes)) }
        let reached = state.withLock { state in
            state.finished += count
            return state.waiters.takeReached(state.finished)
        }
        reached.resume()
    }
}
