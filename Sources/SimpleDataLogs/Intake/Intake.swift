import Foundation

/// The front door of the pipeline: ``IntakeState`` (an ordered queue and every rule about it)
/// under a lock that `track()` takes synchronously, plus a wake-up stream for the identity stage.
///
/// Why a lock and not an `AsyncStream` of events: a stream costs 1 to 2 µs per element here, a
/// lock-guarded append 5 to 25 ns. The stream still carries the wake-ups (one per drain, not one
/// per event), so the consumer never polls.
///
/// The state enforces the memory bounds that sit before the disk: the events held before
/// `configure` (1,000 by default), and the backlog of events accepted but not yet written (5,000
/// events or 16 MiB by default; ``SimpleDataLogsClient/Limits``). Callers that prefer waiting to
/// skipping park here until the journal makes room (``waitForRoom(cost:)``). This class only
/// performs what the state's functions return: wake-ups, resumed waiters, settled items.
final class Intake: Sendable {
    typealias Acceptance = IntakeState.Acceptance
    typealias ActivityAcceptance = IntakeState.ActivityAcceptance
    typealias Backlog = IntakeState.Backlog

    /// Events held before `configure` by default, past which the oldest are dropped.
    static let defaultPreConfigureLimit = 1_000
    /// See ``IntakeState/maxQueuedActivities``.
    static var maxQueuedActivities: Int { IntakeState.maxQueuedActivities }

    private let state: Locked<IntakeState>
    /// Passed when the log is installed (or given up on).
    private let logSettled = Barrier()
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// One element per batch of work to drain; `bufferingNewest(1)` because one pending wake-up
    /// covers any number of appends.
    let wakeUps: AsyncStream<Void>

    /// - Parameter preConfigureLimit: How many events are held before `configure`. Until then
    ///   the backlog bound is the standard one, raised to hold that many.
    init(preConfigureLimit: Int = Intake.defaultPreConfigureLimit) {
        let standard = SimpleDataLogsClient.Limits.standard
        state = Locked(IntakeState(
            backlog: Backlog(events: max(standard.backlogEvents, preConfigureLimit), bytes: standard.backlogBytes),
            preConfigureLimit: preConfigureLimit
        ))
        (wakeUps, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: Producers (any thread)

    /// Stamps and enqueues one event, or says why not. Never blocks beyond the lock.
    /// See ``IntakeState/accept(cost:waitsWhenFull:_:)``.
    func accept(cost: Int, waitsWhenFull: Bool = false, _ makeEvent: (inout EventIDGenerator) -> Event) -> Acceptance {
        let (acceptance, wakes) = state.withLock { $0.accept(cost: cost, waitsWhenFull: waitsWhenFull, makeEvent) }
        if wakes { wakeContinuation.yield() }
        return acceptance
    }

    /// `track()`'s call: with a log, written into it and queued as where it is; else stamped and
    /// enqueued as an event. See ``IntakeState/acceptCall(name:properties:timestamp:trackedAt:eventID:origin:deviceIDSource:scoped:)``.
    @inline(__always)
    func acceptCall(
        name: String, properties: [String: PropertyValue], timestamp: Int64, trackedAt: Int64, eventID: UUID?,
        origin: Event.Origin, deviceIDSource: Event.DeviceIDSource, scoped: [String: PropertyValue]?
    ) -> Acceptance {
        let (acceptance, wakes) = state.withLock {
            $0.acceptCall(
                name: name, properties: properties, timestamp: timestamp, trackedAt: trackedAt, eventID: eventID,
                origin: origin, deviceIDSource: deviceIDSource, scoped: scoped
            )
        }
        if wakes { wakeContinuation.yield() }
        return acceptance
    }

    /// Returns once an event of `cost` bytes would fit in the backlog, or at once when the
    /// intake stops taking events or the calling task is cancelled. Holds no thread while it
    /// waits; the journal's ``release(_:bytes:)`` wakes it. The caller then tries
    /// ``accept(cost:waitsWhenFull:_:)`` again: another caller may have taken the room first.
    func waitForRoom(cost: Int) async {
        await state.park { $0.letsWaiterGo(cost: cost) }
    }

    /// Takes the outbox's room (after every change to what it stores), and wakes the waiting
    /// callers that now fit. Plain `track()` never reads it.
    func setOutboxRoom(_ room: OutboxRoom) {
        resume(state.withLock { $0.setOutboxRoom(room) })
    }

    /// Sets the backlog's bounds from the configuration.
    func setBacklog(events: Int, bytes: Int) {
        resume(state.withLock { $0.setBacklog(Backlog(events: events, bytes: bytes)) })
    }

    /// Enqueues an activity report, in order with the events, within ``maxQueuedActivities``
    /// (see ``IntakeState/enqueueActivity(_:at:)``).
    func enqueueActivity(_ activity: ActivityEvent, at time: Int64) -> ActivityAcceptance {
        let (acceptance, wakes) = state.withLock { $0.enqueueActivity(activity, at: time) }
        if wakes { wakeContinuation.yield() }
        return acceptance
    }

    /// Enqueues an identity call (`setDeviceID`, `setDefaultProperties`), a barrier, or
    /// `setEnabled`, in order with the events.
    ///
    /// After ``shutDown()`` nothing drains the queue any more: items are dropped, and a barrier
    /// is passed at once, so that a `flush()` after `shutdown()` returns instead of waiting forever.
    func enqueue(_ item: IntakeItem) {
        let enqueued = state.withLock { $0.enqueue(item) }
        if enqueued.refused {
            switch item {
            case .barrier(let barrier): barrier.pass()
            // Too late to journal its event: the record stays for the next launch.
            case .crashRecordHandedOver(let record): record.release()
            default: break
            }
        }
        resume(enqueued.waiters)
        if enqueued.wakes { wakeContinuation.yield() }
    }

    /// Ignores new events from now on, without the opt-out's deletion (which follows later,
    /// in order, through ``enqueue(_:)``).
    func stopAccepting() {
        resume(state.withLock { $0.stopAccepting() })
    }

    /// Counts events the SDK makes itself after the intake (`session_start`, `session_end`,
    /// `app_crashed`…) as tracked and in flight, so the conservation law covers them too.
    func admitGenerated(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.admitGenerated(count) }
    }

    /// How many events are held before `configure`.
    var preConfigureLimit: Int { state.withLock { $0.preConfigureLimit } }

    /// Whether new events are being taken (the opt-out's state, as of the last call).
    var isEnabled: Bool { state.withLock { $0.enabled } }

    // MARK: Consumer (the identity stage)

    /// Starts delivering: what was held before `configure` becomes drainable.
    func markConfigured() {
        if state.withLock({ $0.markConfigured() }) { wakeContinuation.yield() }
    }

    /// Takes everything queued, in order, by swapping it with `buffer` (which must be empty):
    /// the two arrays trade places, so neither is reallocated on the next burst.
    /// - Returns: The intake log's newest sequence number among what was taken, if there is a log.
    @discardableResult
    func drain(into buffer: inout [IntakeItem]) -> UInt64? {
        state.withLock { $0.drain(into: &buffer) }
    }

    // MARK: The intake log (issue 25)

    /// A folder is configured: items are held until the outbox has queued the ended runs' replay
    /// (``releaseHeld(replaying:)``).
    func expectLog() {
        state.withLock { $0.expectLog() }
    }

    /// `configure` made the log (or `writer` is nil: there is none): what was held is appended to
    /// it, and stays held until ``releaseHeld(replaying:)``.
    func installLog(_ writer: IntakeLogWriter?) {
        state.withLock { $0.installLog(writer) }
    }

    /// Queues the earlier runs' replays in front of what was held and lets the stage drain. See
    /// ``IntakeState/releaseHeld(replaying:)``.
    @discardableResult
    func releaseHeld(replaying replays: [IntakeLogReplay] = []) -> (inLog: [Bool], through: UInt64?) {
        let (inLog, through, wakes) = state.withLock { $0.releaseHeld(replaying: replays) }
        if wakes { wakeContinuation.yield() }
        logSettled.pass()
        return (inLog, through)
    }

    /// The journal holds every log record up to `sequence` (after a complete `write(2)`): the log
    /// frees their room and says so in its header. Under the intake's lock, which orders it with
    /// the appends (the log has no lock of its own).
    func releaseLog(through sequence: UInt64) {
        state.withLock { $0.releaseLog(through: sequence) }
    }

    /// Zeroes the log's released events, after the opt-out's deletion.
    func wipeReleasedLog() {
        state.withLock { $0.wipeReleasedLog() }
    }

    /// Stops logging and lets go of the log's mapping (the outbox is closing).
    /// - Returns: Whether the journal held every record the log took: then the file holds
    ///   nothing the next launch needs.
    @discardableResult
    func closeLog() -> Bool {
        state.withLock { $0.closeLog() }
    }

    /// Calls taken while the log was full (in memory only until journaled).
    var unloggedCalls: Int { state.withLock { $0.unlogged } }

    /// Events replayed from earlier runs' logs so far.
    var replayedEvents: Int { state.withLock { $0.replayed } }

    /// Returns once the intake holds nothing back for the log: at once when it never waited for
    /// one, else when the outbox has opened it or given up (the outbox always does, at launch).
    /// The stage's last drain at shutdown waits for it, so nothing held is left behind.
    func waitUntilLogSettled() async {
        if isAwaitingLog { await logSettled.wait() }
    }

    /// The intake log's mapping, for the identity stage to read the events queued as
    /// ``IntakeItem/logged(_:)``; nil once the log is closed.
    var logMapping: IntakeLogFile.Mapping? { state.withLock { $0.logMapping } }

    /// Whether items are appended to an intake log.
    var hasLog: Bool { state.withLock { $0.log != nil } }

    /// Whether the intake holds its items until the ended runs' replay is queued in front.
    var isAwaitingLog: Bool { state.withLock { $0.awaitingLog } }

    /// Reports that `count` accepted events of `bytes` estimated memory left memory (written, or
    /// dropped after intake), and wakes the callers waiting for room that now fit.
    /// - Returns: The number skipped in a backlog episode that just ended and the bounds then in
    ///   force, for its closing line.
    func release(_ count: Int, bytes: Int) -> (skipped: Int, backlog: Backlog)? {
        releaseUnlessSettled(count, bytes: bytes).ended
    }

    /// ``release(_:bytes:)`` for a stage that may outlive shutdown (the stages thread, held by a
    /// blocked middleware step): `released` is false when shutdown has already counted these
    /// events as dropped at shutdown (``settleAtShutdown()``), and the caller then counts nothing.
    func releaseUnlessSettled(_ count: Int, bytes: Int) -> (released: Bool, ended: (skipped: Int, backlog: Backlog)?) {
        guard count > 0 else { return (true, nil) }
        let (released, ended, waiters) = state.withLock { $0.release(count, bytes: bytes) }
        resume(waiters)
        return (released, ended)
    }

    /// Counts every event not yet journaled as dropped at shutdown, once the journal has
    /// stopped, and settles what is still queued: barriers are passed (a `flush()` waiting
    /// behind a blocked step returns), crash records stay for the next launch. See
    /// ``IntakeState/settleAtShutdown()``.
    /// - Returns: How many events were dropped.
    func settleAtShutdown() -> Int {
        let (dropped, items) = state.withLock { $0.settleAtShutdown() }
        for item in items {
            switch item {
            case .barrier(let barrier): barrier.pass()
            case .crashRecordHandedOver(let record): record.release()
            default: break
            }
        }
        return dropped
    }

    /// Stops taking events for good, ends the wake-up stream and lets every waiting caller go.
    func shutDown() {
        resume(state.withLock { $0.shutDown() })
        wakeContinuation.finish()
    }

    /// The intake's part of the counters.
    var snapshot: IntakeCounts {
        state.withLock {
            IntakeCounts(
                tracked: $0.tracked, skippedBacklog: $0.skippedBacklog, droppedBeforeConfigure: $0.droppedBeforeConfigure,
                ignoredWhileDisabled: $0.ignoredWhileDisabled, ignoredAfterShutdown: $0.ignoredAfterShutdown,
                droppedAtShutdown: $0.droppedAtShutdown, inFlight: $0.inFlight
            )
        }
    }

    /// The intake's part of the counters, read under its lock at once.
    struct IntakeCounts: Sendable {
        var tracked: Int
        var skippedBacklog: Int
        var droppedBeforeConfigure: Int
        var ignoredWhileDisabled: Int
        var ignoredAfterShutdown: Int
        var droppedAtShutdown: Int
        var inFlight: Int
    }

    /// How many items wait to be drained (events and calls), for tests of the bounds.
    var queuedItemCount: Int { state.withLock { $0.items.count } }

    private func resume(_ waiters: Waiters.Released) {
        for waiter in waiters { waiter.resume() }
    }
}
