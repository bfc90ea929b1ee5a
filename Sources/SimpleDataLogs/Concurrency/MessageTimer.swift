/// A one-shot timer on the client's (injected) clock that posts a message when it fires: the one
/// timer pattern of the SDK (the outbox's seal, set-aside and storage timers; the uploader's
/// backoff and key-probe timer).
///
/// Starting it again replaces the pending firing; ``cancel()`` drops it. Each start gets a new
/// generation, handed to `message`; a firing posted just before a restart or a cancel can still
/// be in the consumer's queue, so the consumer asks ``fired(_:)`` whether the generation it got
/// is the current one before acting on it. The timer never calls into its owner: it only posts,
/// so an actor that owns one keeps its loop as the one place its state changes.
final class MessageTimer<Message: Sendable>: Sendable {
    private struct State: Sendable {
        var generation = 0
        /// Whether the current generation's firing is still to be handled (started and neither
        /// fired-and-handled nor cancelled).
        var pending = false
        var sleeper: Task<Void, Never>?
    }

    private let clock: any Clock<Duration>
    private let post: @Sendable (Message) -> Void
    private let state = Locked(State())

    /// - Parameters:
    ///   - clock: The clock it sleeps on (a manual one in tests).
    ///   - post: Where a firing goes (a ``HandOffQueue``'s `push`, a stream's `yield`).
    init(clock: any Clock<Duration>, post: @escaping @Sendable (Message) -> Void) {
        self.clock = clock
        self.post = post
    }

    /// Starts the timer, replacing a pending one: `message(generation)` is posted after `delay`.
    /// - Returns: The generation of this start.
    @discardableResult
    func start(after delay: Duration, _ message: @escaping @Sendable (Int) -> Message) -> Int {
        let post = post
        // The deadline is taken now, not when the sleeping task first runs: a clock that moves
        // meanwhile (a test's manual clock) still fires it at `delay` after this call.
        let sleep = Self.sleep(on: clock, after: delay)
        let (generation, previous): (Int, Task<Void, Never>?) = state.withLock { state in
            state.generation += 1
            state.pending = true
            let generation = state.generation
            let previous = state.sleeper
            state.sleeper = Task { [state = self.state] in
                do { try await sleep() } catch { return }
                // Replaced or cancelled while the sleep ended: nothing to post.
                guard state.withLock({ $0.generation == generation && $0.pending }) else { return }
                post(message(generation))
            }
            return (generation, previous)
        }
        previous?.cancel()
        return generation
    }

    /// A sleep until `delay` after now on `clock`, the deadline fixed at this call.
    private static func sleep<C: Clock<Duration>>(on clock: C, after delay: Duration) -> @Sendable () async throws -> Void {
        let deadline = clock.now.advanced(by: delay)
        return { try await clock.sleep(until: deadline, tolerance: nil) }
    }

    /// Drops the pending firing, if any; one already posted is stale from now on.
    func cancel() {
        let sleeper: Task<Void, Never>? = state.withLock { state in
            state.generation += 1
            state.pending = false
            defer { state.sleeper = nil }
            return state.sleeper
        }
        sleeper?.cancel()
    }

    /// Whether a start is waiting to fire or to be handled.
    var isPending: Bool { state.withLock { $0.pending } }

    /// Whether a firing of `generation` is the current one, to act on: true once per start
    /// (then the timer is no longer pending), false for a stale one.
    func fired(_ generation: Int) -> Bool {
        state.withLock { state in
            guard state.generation == generation, state.pending else { return false }
            state.pending = false
            state.sleeper = nil
            return true
        }
    }
}
