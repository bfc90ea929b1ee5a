import Foundation

/// The front door of the pipeline: a lock-guarded, ordered queue that `track()` appends to
/// synchronously, plus a wake-up stream for the identity stage.
///
/// Why a lock and not an `AsyncStream` of events: a stream costs 1 to 2 µs per element here, a
/// lock-guarded append 5 to 25 ns. The stream still carries the wake-ups (one per drain, not one
/// per event), so the consumer never polls.
///
/// The intake also enforces the two memory bounds that sit before the disk: at most 1,000 events
/// held before `configure`, and at most 5,000 events accepted but not yet written.
final class Intake: Sendable {
    /// Events accepted but not yet in the journal, past which new ones are skipped.
    static let backlogLimit = 5_000
    /// Events held before `configure`, past which the oldest are dropped.
    static let preConfigureLimit = 1_000

    /// What ``accept(_:)`` decided, so the caller can log outside the lock.
    enum Acceptance: Equatable {
        case accepted
        case ignoredWhileDisabled
        /// Skipped because the backlog is full; `firstInEpisode` asks for the one log line.
        case skippedBacklog(firstInEpisode: Bool)
        /// Accepted, and the oldest held event was dropped to make room before `configure`;
        /// `firstInEpisode` asks for the one log line.
        case acceptedDroppingOldest(firstInEpisode: Bool)
        case ignoredAfterShutdown
    }

    private struct State: Sendable {
        var items: [IntakeItem] = []
        /// The opt-out's state: `setEnabled`.
        var enabled = true
        /// Whether `track` takes events: off after `setEnabled(false)`, and during
        /// `flushAndDisable` before its opt-out arrives.
        var accepting = true
        var configured = false
        var shutDown = false
        var wakePending = false
        /// Events accepted and not yet written to the journal or dropped after intake.
        var inFlight = 0
        /// Events among `items` while not configured.
        var heldBeforeConfigure = 0
        var skippedInEpisode = 0
        var droppingBeforeConfigure = false
        var tracked = 0
        var skippedBacklog = 0
        var droppedBeforeConfigure = 0
        var ignoredWhileDisabled = 0
        var ids = EventIDGenerator()
    }

    private let state = Locked(State())
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// One element per batch of work to drain; `bufferingNewest(1)` because one pending wake-up
    /// covers any number of appends.
    let wakeUps: AsyncStream<Void>

    init() {
        (wakeUps, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: Producers (any thread)

    /// Stamps and enqueues one event, or says why not. Never blocks beyond the lock.
    /// - Parameter makeEvent: Builds the event from a fresh id; runs inside the lock, so it must
    ///   be cheap and must not call out.
    func accept(_ makeEvent: (inout EventIDGenerator) -> Event) -> Acceptance {
        let (acceptance, wake): (Acceptance, Bool) = state.withLock { state in
            if state.shutDown { return (.ignoredAfterShutdown, false) }
            guard state.accepting else {
                state.ignoredWhileDisabled += 1
                return (.ignoredWhileDisabled, false)
            }
            state.tracked += 1
            if state.inFlight >= Self.backlogLimit {
                state.skippedBacklog += 1
                state.skippedInEpisode += 1
                return (.skippedBacklog(firstInEpisode: state.skippedInEpisode == 1), false)
            }
            state.inFlight += 1
            state.items.append(.event(makeEvent(&state.ids)))
            guard state.configured else {
                state.heldBeforeConfigure += 1
                guard state.heldBeforeConfigure > Self.preConfigureLimit else { return (.accepted, false) }
                Self.dropOldestHeldEvent(&state)
                let first = !state.droppingBeforeConfigure
                state.droppingBeforeConfigure = true
                return (.acceptedDroppingOldest(firstInEpisode: first), false)
            }
            return (.accepted, Self.claimWake(&state))
        }
        if wake { wakeContinuation.yield() }
        return acceptance
    }

    /// Enqueues an identity call (`setDeviceID`, `setDefaultProperties`), a barrier, or
    /// `setEnabled`, in order with the events.
    func enqueue(_ item: IntakeItem) {
        let wake: Bool = state.withLock { state in
            if case .setEnabled(let enabled) = item {
                state.enabled = enabled
                state.accepting = enabled
            }
            state.items.append(item)
            return state.configured && Self.claimWake(&state)
        }
        if wake { wakeContinuation.yield() }
    }

    /// Ignores new events from now on, without the opt-out's deletion (which follows later,
    /// in order, through ``enqueue(_:)``).
    func stopAccepting() {
        state.withLock { $0.accepting = false }
    }

    /// Counts events the SDK makes itself after the intake (`session_start`, `session_end`,
    /// `app_crashed`…) as tracked and in flight, so the conservation law covers them too.
    func admitGenerated(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.tracked += count
            state.inFlight += count
        }
    }

    /// Whether new events are being taken (the opt-out's state, as of the last call).
    var isEnabled: Bool { state.withLock { $0.enabled } }

    // MARK: Consumer (the identity stage)

    /// Starts delivering: what was held before `configure` becomes drainable.
    func markConfigured() {
        let wake: Bool = state.withLock { state in
            state.configured = true
            state.heldBeforeConfigure = 0
            return !state.items.isEmpty && Self.claimWake(&state)
        }
        if wake { wakeContinuation.yield() }
    }

    /// Takes everything queued, in order, by swapping it with `buffer` (which must be empty):
    /// the two arrays trade places, so neither is reallocated on the next burst.
    func drain(into buffer: inout [IntakeItem]) {
        state.withLock { state in
            state.wakePending = false
            swap(&state.items, &buffer)
        }
    }

    /// Reports that `count` accepted events left memory (written, or dropped after intake).
    /// - Returns: The number skipped in a backlog episode that just ended, for its closing line.
    func release(_ count: Int) -> Int? {
        guard count > 0 else { return nil }
        return state.withLock { state in
            state.inFlight -= count
            // The episode ends when the writer has caught up by half, so that a writer hovering
            // at the limit does not log a line per event.
            guard state.skippedInEpisode > 0, state.inFlight <= Self.backlogLimit / 2 else { return nil }
            defer { state.skippedInEpisode = 0 }
            return state.skippedInEpisode
        }
    }

    /// Stops taking events for good and ends the wake-up stream.
    func shutDown() {
        state.withLock { $0.shutDown = true }
        wakeContinuation.finish()
    }

    /// The intake's part of the counters.
    var snapshot: (tracked: Int, skippedBacklog: Int, droppedBeforeConfigure: Int, ignoredWhileDisabled: Int, inFlight: Int) {
        state.withLock { ($0.tracked, $0.skippedBacklog, $0.droppedBeforeConfigure, $0.ignoredWhileDisabled, $0.inFlight) }
    }

    private static func claimWake(_ state: inout State) -> Bool {
        guard !state.wakePending else { return false }
        state.wakePending = true
        return true
    }

    private static func dropOldestHeldEvent(_ state: inout State) {
        guard let index = state.items.firstIndex(where: { if case .event = $0 { return true } else { return false } }) else { return }
        state.items.remove(at: index)
        state.heldBeforeConfigure -= 1
        state.inFlight -= 1
        state.droppedBeforeConfigure += 1
    }
}
