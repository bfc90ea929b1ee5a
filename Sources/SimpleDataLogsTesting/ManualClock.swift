import Dispatch
import SimpleDataLogs

/// A clock that moves only when a test says so, for timers, backoff and timeouts without waiting.
///
/// ```swift
/// let clock = ManualClock()
/// let client = SimpleDataLogsClient(clock: clock)
/// // … something starts a 10-second timer …
/// await clock.advance(by: .seconds(10))
/// ```
///
/// `sleep(until:)` suspends until ``advance(by:)`` moves the clock to or past the deadline, or
/// the sleeping task is cancelled (then it throws `CancellationError`, as `ContinuousClock` does).
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the time since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable {
        /// Time since the clock's start.
        public var offset: Duration

        /// Creates an instant `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants by time.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper: Sendable {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: Sendable {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var nextWatcherID = 0
        var sleeperWatchers: [(id: Int, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The smallest step the clock takes: none, it moves exactly as told.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline a task is sleeping until, if any.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Suspends until the clock reaches `deadline`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id: Int = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case due, cancelled, waiting([CheckedContinuation<Bool, Never>]) }
                let outcome: Outcome = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .waiting(Self.takeSatisfiedWatchers(&state))
                }
                switch outcome {
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let watchers): for watcher in watchers { watcher.resume(returning: true) }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come, earliest first.
    /// - Parameter duration: How far to move; must not be negative.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper due by then.
    /// - Parameter instant: The new time.
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLock { state in
            if instant > state.now { state.now = instant }
            let dueIDs = state.sleepers.filter { $0.value.deadline <= state.now }.sorted { $0.value.deadline < $1.value.deadline }.map(\.key)
            return dueIDs.compactMap { state.sleepers.removeValue(forKey: $0) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are sleeping on the clock, so that a test advances
    /// time only after the code under test has started its timer.
    ///
    /// The `timeout` is a deadline on the wall clock, not a wait: a test whose code under test
    /// never starts the timer fails (on `false`) instead of hanging the whole run.
    /// - Parameters:
    ///   - count: How many sleepers to wait for.
    ///   - timeout: How long to wait on the wall clock before giving up.
    /// - Returns: `true` when the sleepers are there, `false` when the timeout came first.
    @discardableResult
    public func waitForSleepers(count: Int = 1, timeout: Duration = .seconds(60)) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let watcher: Int? = state.withLock { state in
                if state.sleepers.count >= count { return nil }
                defer { state.nextWatcherID += 1 }
                state.sleeperWatchers.append((state.nextWatcherID, count, continuation))
                return state.nextWatcherID
            }
            guard let watcher else { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .after(timeout)) { [state] in
                let expired: CheckedContinuation<Bool, Never>? = state.withLock { state in
                    guard let index = state.sleeperWatchers.firstIndex(where: { $0.id == watcher }) else { return nil }
                    return state.sleeperWatchers.remove(at: index).continuation
                }
                expired?.resume(returning: false)
            }
        }
    }

    private static func takeSatisfiedWatchers(_ state: inout State) -> [CheckedContinuation<Bool, Never>] {
        let count = state.sleepers.count
        let ready = state.sleeperWatchers.filter { $0.count <= count }.map(\.continuation)
        state.sleeperWatchers.removeAll { $0.count <= count }
        return ready
    }
}
