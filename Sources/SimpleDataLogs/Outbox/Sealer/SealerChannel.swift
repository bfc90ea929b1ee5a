import Dispatch

/// The link between the outbox (the journal thread) and its sealer: jobs one way, outcomes the
/// other, and a count of finished jobs that the outbox can wait on.
///
/// The sealer never waits for the outbox: it leaves its outcomes here and wakes the outbox's
/// loop, which applies them between chunks. The outbox waits for the sealer only where an
/// order needs it (a barrier, `flush`, the opt-out, `close`), by blocking its own thread, never
/// a thread of the cooperative pool. So neither can deadlock the other.
final class SealerChannel: Sendable {
    private struct State: Sendable {
        var handedOff = 0
        var finished = 0
        var outcomes: [SealOutcome] = []
        var waiters = ThresholdWaiters()
        /// Empty files in the area's `tmp/`, ready to become journals (``takeSpare()``).
        var spares: [String] = []
    }

    /// How many spare journals the sealer keeps ready: a burst of seals takes one each.
    static let maxSpares = 64

    /// What the sealer takes, in order.
    let jobs = HandOffQueue<SealerJob>()
    private let state = Locked(State())
    /// Wakes the outbox's loop: outcomes are waiting.
    private let wakeOutbox: @Sendable () -> Void

    init(wakeOutbox: @escaping @Sendable () -> Void) {
        self.wakeOutbox = wakeOutbox
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

    /// The outcomes of the seals finished since the last call, oldest first.
    func takeOutcomes() -> [SealOutcome] {
        state.withLock { state in
            guard !state.outcomes.isEmpty else { return [] }
            defer { state.outcomes = [] }
            return state.outcomes
        }
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
    /// so that their outcomes are all waiting in ``takeOutcomes()``.
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

    /// Records the end of `count` jobs and their seal outcomes, then wakes the outbox (when
    /// there are outcomes to apply) and whoever waits for these jobs.
    func finished(_ count: Int, outcomes: [SealOutcome]) {
        let reached = state.withLock { state in
            state.outcomes += outcomes
            state.finished += count
            return state.waiters.takeReached(state.finished)
        }
        if !outcomes.isEmpty { wakeOutbox() }
        reached.resume()
    }
}
