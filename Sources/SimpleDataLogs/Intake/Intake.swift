import Foundation

/// The front door of the pipeline: a lock-guarded, ordered queue that `track()` appends to
/// synchronously, plus a wake-up stream for the identity stage.
///
/// Why a lock and not an `AsyncStream` of events: a stream costs 1 to 2 µs per element here, a
/// lock-guarded append 5 to 25 ns. The stream still carries the wake-ups (one per drain, not one
/// per event), so the consumer never polls.
///
/// The intake also enforces the memory bounds that sit before the disk: the events held before
/// `configure` (1,000 by default), and the backlog of events accepted but not yet written (5,000
/// events or 16 MiB by default; ``SimpleDataLogsClient/Limits``). Callers that prefer waiting to
/// skipping park here until the journal makes room (``waitForRoom(cost:)``).
final class Intake: Sendable {
    /// Events held before `configure` by default, past which the oldest are dropped.
    static let defaultPreConfigureLimit = 1_000

    /// What ``accept(cost:waitsWhenFull:_:)`` decided, so the caller can log outside the lock.
    enum Acceptance: Equatable {
        case accepted
        case ignoredWhileDisabled
        /// Skipped because the backlog is full; `firstInEpisode` asks for the one log line, which
        /// names the limit that was reached.
        case skippedBacklog(firstInEpisode: Bool, limit: Backlog)
        /// The backlog is full and the caller asked to wait instead: nothing was counted yet.
        case full
        /// Accepted, and the oldest held event was dropped to make room before `configure`;
        /// `firstInEpisode` asks for the one log line.
        case acceptedDroppingOldest(firstInEpisode: Bool)
        case ignoredAfterShutdown
    }

    private struct State: ParksWaiters {
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
        /// Their estimated memory (``Event/memoryCost``).
        var inFlightBytes = 0
        var backlog: Backlog
        let preConfigureLimit: Int
        /// Callers of ``waitForRoom(cost:)``, oldest first.
        var waiters = WaiterQueue()
        /// Events among `items` while not configured.
        var heldBeforeConfigure = 0
        var skippedInEpisode = 0
        var droppingBeforeConfigure = false
        var tracked = 0
        var skippedBacklog = 0
        var droppedBeforeConfigure = 0
        var ignoredWhileDisabled = 0
        var ids = EventIDGenerator()
        /// Activity reports among `items` (``maxQueuedActivities``).
        var queuedActivities = 0
        var droppingActivities = false
    }

    /// The backlog's bounds: events accepted but not yet written, by count and by estimated bytes.
    struct Backlog: Sendable, Equatable {
        var events: Int
        var bytes: Int

        /// Whether an event of `cost` bytes fits next to `inFlight` events of `inFlightBytes`.
        /// An empty backlog always takes one event, so that no single event is refused forever.
        func hasRoom(inFlight: Int, inFlightBytes: Int, cost: Int) -> Bool {
            inFlight == 0 || (inFlight < events && inFlightBytes + cost <= bytes)
        }

        /// Whether the writer has caught up by half of both bounds: the end of a skipping episode.
        func isHalfEmpty(inFlight: Int, inFlightBytes: Int) -> Bool {
            inFlight <= events / 2 && inFlightBytes <= bytes / 2
        }
    }

    private let state: Locked<State>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// One element per batch of work to drain; `bufferingNewest(1)` because one pending wake-up
    /// covers any number of appends.
    let wakeUps: AsyncStream<Void>

    /// - Parameter preConfigureLimit: How many events are held before `configure`. Until then
    ///   the backlog bound is the standard one, raised to hold that many.
    init(preConfigureLimit: Int = Intake.defaultPreConfigureLimit) {
        let standard = SimpleDataLogsClient.Limits.standard
        state = Locked(State(
            backlog: Backlog(events: max(standard.backlogEvents, preConfigureLimit), bytes: standard.backlogBytes),
            preConfigureLimit: preConfigureLimit
        ))
        (wakeUps, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: Producers (any thread)

    /// Stamps and enqueues one event, or says why not. Never blocks beyond the lock.
    /// - Parameters:
    ///   - cost: The event's estimated memory (``Event/memoryCost``), for the backlog's byte bound.
    ///   - waitsWhenFull: Whether a full backlog answers ``Acceptance/full`` (counting nothing,
    ///     so that the caller can wait and try again) instead of skipping the event.
    ///   - makeEvent: Builds the event from a fresh id; runs inside the lock, so it must be cheap
    ///     and must not call out.
    func accept(cost: Int, waitsWhenFull: Bool = false, _ makeEvent: (inout EventIDGenerator) -> Event) -> Acceptance {
        let (acceptance, wake): (Acceptance, Bool) = state.withLock { state in
            if state.shutDown { return (.ignoredAfterShutdown, false) }
            guard state.accepting else {
                state.ignoredWhileDisabled += 1
                return (.ignoredWhileDisabled, false)
            }
            if !state.backlog.hasRoom(inFlight: state.inFlight, inFlightBytes: state.inFlightBytes, cost: cost) {
                // Before `configure` the pre-configure bound drops the oldest instead (below).
                if waitsWhenFull && state.configured { return (.full, false) }
                if state.configured || state.heldBeforeConfigure < state.preConfigureLimit {
                    state.tracked += 1
                    state.skippedBacklog += 1
                    state.skippedInEpisode += 1
                    return (.skippedBacklog(firstInEpisode: state.skippedInEpisode == 1, limit: state.backlog), false)
                }
            }
            state.tracked += 1
            state.inFlight += 1
            state.inFlightBytes += cost
            state.items.append(.event(makeEvent(&state.ids)))
            guard state.configured else {
                state.heldBeforeConfigure += 1
                guard state.heldBeforeConfigure > state.preConfigureLimit else { return (.accepted, false) }
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

    /// Returns once an event of `cost` bytes would fit in the backlog, or at once when the
    /// intake stops taking events or the calling task is cancelled. Holds no thread while it
    /// waits; the journal's ``release(_:bytes:)`` wakes it. The caller then tries
    /// ``accept(cost:waitsWhenFull:_:)`` again: another caller may have taken the room first.
    func waitForRoom(cost: Int) async {
        await state.park { state in
            state.shutDown || !state.accepting
                || state.backlog.hasRoom(inFlight: state.inFlight, inFlightBytes: state.inFlightBytes, cost: cost)
        }
    }

    /// Sets the backlog's bounds from the configuration.
    func setBacklog(events: Int, bytes: Int) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.backlog = Backlog(events: events, bytes: bytes)
            return Self.takeWaitersThatFit(&state)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The most activity reports (`foreground`, `background`) waiting to be drained; past it new
    /// ones are dropped. Consecutive `userInput` reports fold into one item.
    static let maxQueuedActivities = 1_000

    /// What ``enqueueActivity(_:at:)`` did.
    enum ActivityAcceptance: Equatable {
        case queued
        /// Folded into the `userInput` report just before it: only the latest input time counts.
        case coalesced
        /// Dropped: ``maxQueuedActivities`` are waiting; `firstInEpisode` asks for the one log line.
        case dropped(firstInEpisode: Bool)
    }

    /// Enqueues an activity report, in order with the events, within ``maxQueuedActivities``.
    ///
    /// A caller reporting input on every keystroke or mouse move would otherwise grow the queue
    /// without bound while the stage is busy or before `configure`. Consecutive `userInput`
    /// reports fold into the newest: the activity rules keep only the latest input time, and the
    /// session rules ignore input. Foreground and background reports are never folded (each one
    /// moves the session and engagement rules); a flood of them is cut at the bound instead.
    func enqueueActivity(_ activity: ActivityEvent, at time: Int64) -> ActivityAcceptance {
        let (acceptance, wake): (ActivityAcceptance, Bool) = state.withLock { state in
            if state.shutDown { return (.queued, false) }
            if activity == .userInput, case .activity(.userInput, _)? = state.items.last {
                state.items[state.items.count - 1] = .activity(.userInput, at: time)
                return (.coalesced, false)
            }
            guard state.queuedActivities < Self.maxQueuedActivities else {
                defer { state.droppingActivities = true }
                return (.dropped(firstInEpisode: !state.droppingActivities), false)
            }
            state.droppingActivities = false
            state.queuedActivities += 1
            state.items.append(.activity(activity, at: time))
            return (.queued, state.configured && Self.claimWake(&state))
        }
        if wake { wakeContinuation.yield() }
        return acceptance
    }

    /// Enqueues an identity call (`setDeviceID`, `setDefaultProperties`), a barrier, or
    /// `setEnabled`, in order with the events.
    ///
    /// After ``shutDown()`` nothing drains the queue any more: items are dropped, and a barrier
    /// is passed at once, so that a `flush()` after `shutdown()` returns instead of waiting forever.
    func enqueue(_ item: IntakeItem) {
        let (wake, waiters, dropped): (Bool, [CheckedContinuation<Void, Never>], Bool) = state.withLock { state in
            if state.shutDown { return (false, [], true) }
            var waiters: [CheckedContinuation<Void, Never>] = []
            if case .setEnabled(let enabled) = item {
                state.enabled = enabled
                state.accepting = enabled
                if !enabled { waiters = state.waiters.takeAll() }
            }
            Self.append(item, to: &state.items)
            return (state.configured && Self.claimWake(&state), waiters, false)
        }
        if dropped {
            switch item {
            case .barrier(let barrier): barrier.pass()
            // Too late to journal its event: the record stays for the next launch.
            case .crashRecordHandedOver(let record): record.release()
            default: break
            }
        }
        for waiter in waiters { waiter.resume() }
        if wake { wakeContinuation.yield() }
    }

    /// Ignores new events from now on, without the opt-out's deletion (which follows later,
    /// in order, through ``enqueue(_:)``).
    func stopAccepting() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.accepting = false
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
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

    /// How many events are held before `configure`.
    var preConfigureLimit: Int { state.withLock { $0.preConfigureLimit } }

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
            state.queuedActivities = 0
            swap(&state.items, &buffer)
        }
    }

    /// Reports that `count` accepted events of `bytes` estimated memory left memory (written, or
    /// dropped after intake), and wakes the callers waiting for room that now fit.
    /// - Returns: The number skipped in a backlog episode that just ended and the bounds then in
    ///   force, for its closing line.
    func release(_ count: Int, bytes: Int) -> (skipped: Int, backlog: Backlog)? {
        guard count > 0 else { return nil }
        let (ended, waiters): ((Int, Backlog)?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
            state.inFlight -= count
            state.inFlightBytes -= bytes
            let waiters = Self.takeWaitersThatFit(&state)
            // The episode ends when the writer has caught up by half, so that a writer hovering
            // at the limit does not log a line per event.
            guard state.skippedInEpisode > 0, state.backlog.isHalfEmpty(inFlight: state.inFlight, inFlightBytes: state.inFlightBytes) else {
                return (nil, waiters)
            }
            defer { state.skippedInEpisode = 0 }
            return ((state.skippedInEpisode, state.backlog), waiters)
        }
        for waiter in waiters { waiter.resume() }
        return ended
    }

    /// Stops taking events for good, ends the wake-up stream and lets every waiting caller go.
    func shutDown() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.shutDown = true
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
        wakeContinuation.finish()
    }

    /// The intake's part of the counters.
    var snapshot: (tracked: Int, skippedBacklog: Int, droppedBeforeConfigure: Int, ignoredWhileDisabled: Int, inFlight: Int) {
        state.withLock { ($0.tracked, $0.skippedBacklog, $0.droppedBeforeConfigure, $0.ignoredWhileDisabled, $0.inFlight) }
    }

    /// Appends an item, coalescing an identity call with an earlier one that sets the same thing
    /// when only identity calls stand between them: only the later one can matter (the two kinds
    /// set independent state, so their order among themselves does not). So a hot loop of `setDeviceID` or
    /// `setDefaultProperties` holds one item, not millions, while events (bounded by the backlog)
    /// keep their order with every call. `setEnabled`, barriers and activity are never merged:
    /// an opt-out followed by an opt-in still deletes, and every barrier has a waiter.
    private static func append(_ item: IntakeItem, to items: inout [IntakeItem]) {
        // The trailing run of identity calls holds at most one of each kind (two items), so this
        // looks at no more than two items.
        var index = items.endIndex
        while index > items.startIndex {
            index -= 1
            switch (items[index], item) {
            case (.setDeviceID, .setDeviceID), (.setDefaultProperties, .setDefaultProperties):
                items[index] = item
                return
            case (.setDeviceID, _), (.setDefaultProperties, _):
                continue
            default:
                items.append(item)
                return
            }
        }
        items.append(item)
    }

    /// How many items wait to be drained (events and calls), for tests of the bounds.
    var queuedItemCount: Int { state.withLock { $0.items.count } }

    /// The oldest waiters, as many as there are free event slots: each may take one. Woken
    /// waiters that lose the room to a plain `track()` simply wait again.
    private static func takeWaitersThatFit(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.inFlightBytes < state.backlog.bytes else { return [] }
        return state.waiters.takeFirst(state.backlog.events - state.inFlight)
    }

    private static func claimWake(_ state: inout State) -> Bool {
        guard !state.wakePending else { return false }
        state.wakePending = true
        return true
    }

    private static func dropOldestHeldEvent(_ state: inout State) {
        guard let index = state.items.firstIndex(where: { if case .event = $0 { return true } else { return false } }) else { return }
        if case .event(let event) = state.items.remove(at: index) { state.inFlightBytes -= event.memoryCost }
        state.heldBeforeConfigure -= 1
        state.inFlight -= 1
        state.droppedBeforeConfigure += 1
    }
}
