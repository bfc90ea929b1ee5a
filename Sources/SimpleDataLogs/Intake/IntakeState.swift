import Foundation

/// Every rule of the intake, as a value: the ordered queue, the opt-out flags, the events held
/// before `configure`, the backlog's bounds with their skipping episodes, the activity bound, the
/// one pending wake-up, and the counters. One mutating function per input, each returning what
/// the caller must do outside the lock (wake the stage, resume waiters, log once).
///
/// ``Intake`` keeps it under a lock (`track()` appends in 5 to 25 ns; a stream would cost 1 to
/// 2 µs an element) and does the effects; `IntakeStateTests` drives it synchronously.
struct IntakeState: ParksWaiters {
    /// The most activity reports (`foreground`, `background`) waiting to be drained; past it new
    /// ones are dropped. Consecutive `userInput` reports fold into one item.
    static let maxQueuedActivities = 1_000

    private(set) var items: [IntakeItem] = []
    /// The opt-out's state: `setEnabled`.
    private(set) var enabled = true
    /// Whether `track` takes events: off after `setEnabled(false)`, and during
    /// `flushAndDisable` before its opt-out arrives.
    private(set) var accepting = true
    private(set) var configured = false
    private(set) var isShutDown = false
    /// A wake-up is on its way to the stage; more appends need none until it drains.
    private(set) var wakePending = false
    /// Events accepted and not yet written to the journal or dropped after intake.
    private(set) var inFlight = 0
    /// Their estimated memory (``Event/memoryCost``).
    private(set) var inFlightBytes = 0
    private(set) var backlog: Backlog
    /// The outbox's room, as it last published it; `nil` until it does. Only callers that wait
    /// look at it: plain `track()` never waits, and evicts at the caps as it always did.
    private(set) var outboxRoom: OutboxRoom?
    let preConfigureLimit: Int
    /// Callers of `Intake.waitForRoom(cost:)`, oldest first.
    var waiters = Waiters()
    /// Events among `items` while not configured.
    private(set) var heldBeforeConfigure = 0
    private var skippedInEpisode = 0
    private var droppingBeforeConfigure = false
    private(set) var tracked = 0
    private(set) var skippedBacklog = 0
    private(set) var droppedBeforeConfigure = 0
    private(set) var ignoredWhileDisabled = 0
    /// `track()` calls after `shutdown()`: a server's handlers that go on tracking while it shuts
    /// down would otherwise lose events without a trace (issue 23).
    private(set) var ignoredAfterShutdown = 0
    /// Events shutdown gave up on: still before (or inside) the middleware steps when its time
    /// limit ran out (``settleAtShutdown()``).
    private(set) var droppedAtShutdown = 0
    /// Shutdown has counted every event still in flight as dropped: a stage that outlived it
    /// (the stages thread, held by a blocked step) counts nothing more.
    private(set) var isSettled = false
    private var ids = EventIDGenerator()
    /// The intake log's writer, installed by `configure` (issue 25): every item is appended to it
    /// as it is queued, under the same lock, so the log's order is the queue's.
    private(set) var log: IntakeLogWriter?
    /// The log's mapping, for the identity stage to read the events queued as
    /// ``IntakeItem/logged(_:)``; nil once the log is closed (the outbox is closing: what is
    /// still queued stays in the file for the next launch).
    private(set) var logMapping: IntakeLogFile.Mapping?
    /// Whether `log` is set: tested on `track()`'s path without copying the writer.
    private var logging = false
    /// The outbox has not yet queued the ended runs' replay: items are held (not drained, and
    /// logged when there is a log) until it has, so that the replay goes in front of them.
    private(set) var awaitingLog = false
    /// Calls taken while the log was full (the journal far behind): queued in memory only, as
    /// without a log, never skipped for it. Counted for the figures; the episode's first asks for
    /// one log line.
    private(set) var unlogged = 0
    /// Events replayed from earlier runs' logs (counted as recovered, not tracked).
    private(set) var replayed = 0
    private var unloggedEpisode = false
    /// Whether queued items may be drained now.
    private var drains: Bool { configured && !awaitingLog }
    /// Activity reports among `items` (``maxQueuedActivities``).
    private(set) var queuedActivities = 0
    private var droppingActivities = false

    /// - Parameters:
    ///   - backlog: The backlog's bounds until the configuration sets them.
    ///   - preConfigureLimit: How many events are held before `configure`.
    init(backlog: Backlog, preConfigureLimit: Int) {
        self.backlog = backlog
        self.preConfigureLimit = preConfigureLimit
    }

    // MARK: Producers

    /// Stamps and queues one event, or says why not.
    /// - Parameters:
    ///   - cost: The event's estimated memory, for the backlog's byte bound.
    ///   - waitsWhenFull: Whether a full backlog answers ``Acceptance/full`` (counting nothing,
    ///     so the caller can wait and try again) instead of skipping the event. Such a caller is
    ///     also told ``Acceptance/full`` while the outbox has no room for the events in flight
    ///     and this one: taking it would make the caps evict an older one.
    ///   - makeEvent: Builds the event from a fresh id; must be cheap and must not call out (it
    ///     runs under the intake's lock).
    /// - Returns: The decision, and whether to wake the stage.
    mutating func accept(cost: Int, waitsWhenFull: Bool, _ makeEvent: (inout EventIDGenerator) -> Event) -> (Acceptance, wakes: Bool) {
        if isShutDown {
            ignoredAfterShutdown += 1
            return (.ignoredAfterShutdown(first: ignoredAfterShutdown == 1), false)
        }
        guard accepting else {
            ignoredWhileDisabled += 1
            return (.ignoredWhileDisabled, false)
        }
        if !backlog.hasRoom(inFlight: inFlight, inFlightBytes: inFlightBytes, cost: cost) {
            // Before `configure` the pre-configure bound drops the oldest instead (below).
            if waitsWhenFull && configured { return (.full, false) }
            if configured || heldBeforeConfigure < preConfigureLimit {
                tracked += 1
                skippedBacklog += 1
                skippedInEpisode += 1
                return (.skippedBacklog(firstInEpisode: skippedInEpisode == 1, limit: backlog), false)
            }
        }
        if waitsWhenFull && configured && !outboxHasRoom(cost: cost) { return (.full, false) }
        let event = makeEvent(&ids)
        // A full log (the journal far behind, within the backlog's bounds) costs the call its
        // protection against a kill, never the call: it waits in memory, as without a log.
        var unloggedFirst = false
        if logging {
            if log?.append(event: event) == true { unloggedEpisode = false } else { unloggedFirst = noteUnlogged() }
        }
        tracked += 1
        inFlight += 1
        inFlightBytes += cost
        items.append(.event(event))
        guard configured else {
            heldBeforeConfigure += 1
            guard heldBeforeConfigure > preConfigureLimit else { return (.accepted, false) }
            dropOldestHeldEvent()
            let first = !droppingBeforeConfigure
            droppingBeforeConfigure = true
            return (.acceptedDroppingOldest(firstInEpisode: first), false)
        }
        if unloggedFirst { return (.acceptedUnlogged, drains && claimWake()) }
        return (.accepted, drains && claimWake())
    }

    /// `track()`'s path with a log (decision 0045): the call's record is written into the log
    /// from its own fields, judged against the backlog by its bytes, published unsealed, and
    /// queued as ``IntakeItem/logged(_:)``: no ``Event`` is built, copied or estimated, and no
    /// checksum is made. The identity stage reads the event back and seals the record.
    ///
    /// Without a log, before `configure`, or when the record does not fit at the ring's head,
    /// it is ``accept(cost:waitsWhenFull:_:)`` with the event built as always.
    /// - Returns: The decision, and whether to wake the stage.
    mutating func acceptCall(
        name: String, properties: [String: PropertyValue], timestamp: Int64, trackedAt: Int64, eventID: UUID?,
        origin: Event.Origin, deviceIDSource: Event.DeviceIDSource, scoped: [String: PropertyValue]?
    ) -> (Acceptance, wakes: Bool) {
        // `logging` and `log?.`, never `log != nil` then `log!.`: the comparison copied the whole
        // writer (a retain and a release of each of its references) twice a call (callgrind).
        if configured, accepting, !isShutDown, logging {
            // A backlog full by count (or by bytes, whatever the cost) skips before encoding:
            // a flood of calls past the bound costs no more than without the log.
            if inFlight > 0, inFlight >= backlog.events || inFlightBytes >= backlog.bytes { return skipForBacklog() }
            let id = eventID.map(EventIDWords.init) ?? ids.nextWords(milliseconds: trackedAt)
            if let payloadCount = log?.writeCall(
                name: name, id: id, timestamp: timestamp, trackedAt: trackedAt, origin: origin, deviceIDSource: deviceIDSource,
                properties: properties, scoped: scoped
            ) {
                let cost = LoggedRecord.memoryCost(payloadCount: payloadCount)
                // Left unpublished when skipped: the next record overwrites it.
                guard backlog.hasRoom(inFlight: inFlight, inFlightBytes: inFlightBytes, cost: cost) else { return skipForBacklog() }
                if let record = log?.publishCall(payloadCount: payloadCount) {
                    unloggedEpisode = false
                    tracked += 1
                    inFlight += 1
                    inFlightBytes += cost
                    items.append(.logged(record))
                    return (.accepted, drains && claimWake())
                }
            }
        }
        var explicitDeviceID: String?
        if case .explicit(let device) = deviceIDSource { explicitDeviceID = device }
        let cost = Event.memoryCost(name: name, properties: properties, deviceID: explicitDeviceID)
        return accept(cost: cost, waitsWhenFull: false) { ids in
            Event(
                name: name, id: eventID ?? ids.next(milliseconds: trackedAt), timestamp: timestamp, trackedAt: trackedAt,
                properties: properties, origin: origin, deviceIDSource: deviceIDSource, scopedProperties: scoped, memoryCost: cost
            )
        }
    }

    /// Counts a call the backlog's bound skips (once configured).
    private mutating func skipForBacklog() -> (Acceptance, wakes: Bool) {
        tracked += 1
        skippedBacklog += 1
        skippedInEpisode += 1
        return (.skippedBacklog(firstInEpisode: skippedInEpisode == 1, limit: backlog), false)
    }

    /// Counts a call the full log could not take. - Returns: Whether it opens an episode (one
    /// line); an append that fits again ends it.
    private mutating func noteUnlogged() -> Bool {
        unlogged += 1
        defer { unloggedEpisode = true }
        return !unloggedEpisode
    }

    /// Queues an activity report within ``maxQueuedActivities``, folding consecutive `userInput`
    /// reports into the newest: the activity rules keep only the latest input time, and the
    /// session rules ignore input. Foreground and background reports are never folded (each one
    /// moves the session and engagement rules); a flood of them is cut at the bound instead.
    mutating func enqueueActivity(_ activity: ActivityEvent, at time: Int64) -> (ActivityAcceptance, wakes: Bool) {
        if isShutDown { return (.queued, false) }
        if activity == .userInput, case .activity(.userInput, _)? = items.last {
            items[items.count - 1] = .activity(.userInput, at: time)
            return (.coalesced, false)
        }
        guard queuedActivities < Self.maxQueuedActivities else {
            defer { droppingActivities = true }
            return (.dropped(firstInEpisode: !droppingActivities), false)
        }
        droppingActivities = false
        queuedActivities += 1
        let item = IntakeItem.activity(activity, at: time)
        if log != nil { _ = log!.append(item) }
        items.append(item)
        return (.queued, drains && claimWake())
    }

    /// Queues an identity call, a barrier, `setEnabled` or a crash record's hand-over, in order
    /// with the events. `setEnabled(false)` stops taking events at once and lets the waiting
    /// callers go; its deletion happens downstream, in order.
    mutating func enqueue(_ item: IntakeItem) -> Enqueued {
        if isShutDown { return Enqueued(wakes: false, waiters: [], refused: true) }
        var released: Waiters.Released = []
        if case .setEnabled(let enabled) = item {
            self.enabled = enabled
            accepting = enabled
            if !enabled { released = waiters.takeAll() }
        }
        // A full log leaves the call unlogged rather than refused: it is not an event, and the
        // app cannot be told (DESIGN.md, "The intake log").
        if log != nil { _ = log!.append(item) }
        append(item)
        return Enqueued(wakes: drains && claimWake(), waiters: released, refused: false)
    }

    /// Ignores new events from now on, without the opt-out's deletion (`flushAndDisable`).
    mutating func stopAccepting() -> Waiters.Released {
        accepting = false
        return waiters.takeAll()
    }

    /// Counts events the SDK makes itself after the intake as tracked and in flight.
    /// Nothing after ``settleAtShutdown()``: such events are never journaled.
    mutating func admitGenerated(_ count: Int) {
        guard count > 0, !isSettled else { return }
        tracked += count
        inFlight += count
    }

    /// Sets the backlog's bounds; returns the waiters that now fit.
    mutating func setBacklog(_ bounds: Backlog) -> Waiters.Released {
        backlog = bounds
        return takeWaitersThatFit()
    }

    /// Sets the outbox's room (the outbox publishes it after every change); returns the waiters
    /// that now fit.
    mutating func setOutboxRoom(_ room: OutboxRoom) -> Waiters.Released {
        outboxRoom = room
        return takeWaitersThatFit()
    }

    /// Whether an event of `cost` would fit, backlog and outbox, or waiting is pointless (shut
    /// down, not accepting).
    func letsWaiterGo(cost: Int) -> Bool {
        isShutDown || !accepting
            || (backlog.hasRoom(inFlight: inFlight, inFlightBytes: inFlightBytes, cost: cost) && outboxHasRoom(cost: cost))
    }

    /// Whether the outbox can take the events in flight and one more of `cost` without its caps
    /// evicting; true until the outbox has said how much room it has.
    func outboxHasRoom(cost: Int) -> Bool {
        outboxRoom?.fits(inFlight: inFlight, inFlightBytes: inFlightBytes, cost: cost) ?? true
    }

    // MARK: Consumer

    /// Starts delivering: what was held before `configure` becomes drainable. Returns whether to
    /// wake the stage.
    mutating func markConfigured() -> Bool {
        configured = true
        heldBeforeConfigure = 0
        return !items.isEmpty && drains && claimWake()
    }

    /// A folder is configured: hold every item until the outbox has queued the ended runs'
    /// replay (``releaseHeld(replaying:)``).
    mutating func expectLog() {
        awaitingLog = true
    }

    /// `configure` made the log (nil: it could not): every item held meanwhile (those tracked
    /// before `configure`) is appended to it, in order, and so is every later one. The items stay held until
    /// ``releaseHeld(replaying:events:bytes:)`` puts the earlier runs' replay in front of them.
    mutating func installLog(_ writer: IntakeLogWriter?) {
        guard var writer else { return }
        for item in items { _ = writer.append(item) }
        logMapping = writer.file.mappingForStages
        log = writer
        logging = true
    }

    /// Queues what earlier runs' logs left in front of everything held, and lets the stage
    /// drain: a `flush()` made at launch covers the replay. Each log's replay
    /// (``IntakeLogReplay``, bracketed: its place in the log does not matter) is also appended to
    /// this run's log, whole, if it fits: then its file may go at once. Every replay is queued,
    /// fitting or not (the files of those that did not fit go once the journal holds them).
    /// - Returns: For each replay, whether this run's log holds it; the newest log record's
    ///   sequence number; and whether to wake the stage.
    mutating func releaseHeld(replaying replays: [IntakeLogReplay]) -> (inLog: [Bool], through: UInt64?, wakes: Bool) {
        awaitingLog = false
        var queued: [IntakeItem] = []
        var inLog: [Bool] = []
        for replay in replays {
            inLog.append(replay.items.isEmpty || (log != nil && log!.appendSection(replay.items)))
            queued += replay.items
            inFlight += replay.events
            inFlightBytes += replay.eventBytes
            replayed += replay.events
        }
        if !queued.isEmpty { items = queued + items }
        return (inLog, log?.lastSequence, !items.isEmpty && drains && claimWake())
    }

    /// The journal holds every log record up to `sequence`: the log frees their room.
    mutating func releaseLog(through sequence: UInt64) {
        if log != nil { log!.release(through: sequence) }
    }

    /// Zeroes the log's released events (the opt-out's deletion reaches the log).
    mutating func wipeReleasedLog() {
        if log != nil { log!.wipeReleased() }
    }

    /// Stops logging: the outbox is closing. Later calls are not logged (nothing takes them to
    /// the journal either); the file stays, released up to what the journal holds.
    /// - Returns: Whether the journal held every record the log took (nothing is left in it for
    ///   the next launch); false without a log.
    @discardableResult
    mutating func closeLog() -> Bool {
        let fullyReleased = log?.isFullyReleased ?? false
        if log != nil { log!.close() }
        log = nil
        logging = false
        // The lock goes with the last reference: the next launch takes this file. A stage
        // reading a record holds its own reference until it is done.
        logMapping = nil
        return fullyReleased
    }

    /// Takes everything queued, in order, by swapping it with `buffer` (which must be empty).
    /// Nothing while the log is being opened.
    /// - Returns: The sequence number of the newest log record among what was taken (and every
    ///   earlier one), or nil without a log.
    @discardableResult
    mutating func drain(into buffer: inout [IntakeItem]) -> UInt64? {
        guard !awaitingLog else { return nil }
        wakePending = false
        queuedActivities = 0
        swap(&items, &buffer)
        return log?.lastSequence
    }

    /// `count` accepted events of `bytes` left memory (written, or dropped after intake).
    /// - Returns: The waiters that now fit, and the number skipped in a backlog episode that just
    ///   ended with the bounds then in force, for its closing line. An episode ends when the
    ///   writer has caught up by half, so a writer hovering at the limit does not log per event.
    ///   After ``settleAtShutdown()`` it changes nothing and returns `released: false`: those
    ///   events were counted as dropped at shutdown already, and the caller must count nothing.
    mutating func release(_ count: Int, bytes: Int) -> (released: Bool, ended: (skipped: Int, backlog: Backlog)?, waiters: Waiters.Released) {
        guard !isSettled else { return (false, nil, []) }
        inFlight -= count
        inFlightBytes -= bytes
        let released = takeWaitersThatFit()
        guard skippedInEpisode > 0, backlog.isHalfEmpty(inFlight: inFlight, inFlightBytes: inFlightBytes) else {
            return (true, nil, released)
        }
        defer { skippedInEpisode = 0 }
        return (true, (skippedInEpisode, backlog), released)
    }

    /// Stops taking events for good; returns the waiters to let go.
    mutating func shutDown() -> Waiters.Released {
        isShutDown = true
        return waiters.takeAll()
    }

    /// Shutdown gave up on the stages before the journal (a middleware step still working when
    /// its time limit ran out): every event still in flight, queued here or held by a stage, is
    /// counted as dropped at shutdown, and from now on nothing is released or admitted, so a
    /// stage that comes back later (a blocked step that returns) cannot count an event twice.
    /// Call it once the journal has stopped, so that every event it wrote was released first.
    /// - Returns: How many events were dropped, and the items still queued, for the caller to
    ///   settle (pass the barriers, release the crash records).
    mutating func settleAtShutdown() -> (dropped: Int, items: [IntakeItem]) {
        guard !isSettled else { return (0, []) }
        isSettled = true
        let dropped = inFlight
        droppedAtShutdown += dropped
        inFlight = 0
        inFlightBytes = 0
        defer { items = [] }
        return (dropped, items)
    }

    // MARK: Rules

    /// Appends an item, coalescing an identity call with an earlier one that sets the same thing
    /// when only identity calls stand between them: only the later one can matter (the two kinds
    /// set independent state, so their order among themselves does not). So a hot loop of
    /// `setDeviceID` or `setDefaultProperties` holds one item, not millions, while events (bounded
    /// by the backlog) keep their order with every call. `setEnabled`, barriers and activity are
    /// never merged: an opt-out followed by an opt-in still deletes, and every barrier has a waiter.
    private mutating func append(_ item: IntakeItem) {
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

    /// The oldest waiters, as many as there are free event slots in the backlog and the outbox:
    /// each may take one. Woken waiters that lose the room to a plain `track()` simply wait again.
    private mutating func takeWaitersThatFit() -> Waiters.Released {
        guard inFlightBytes < backlog.bytes else { return [] }
        var slots = backlog.events - inFlight
        if let outboxRoom {
            guard inFlightBytes < outboxRoom.bytes else { return [] }
            slots = min(slots, outboxRoom.events - inFlight)
        }
        return waiters.takeFirst(slots)
    }

    /// One wake-up per drain: the first append after a drain claims it.
    private mutating func claimWake() -> Bool {
        guard !wakePending else { return false }
        wakePending = true
        return true
    }

    private mutating func dropOldestHeldEvent() {
        guard let index = items.firstIndex(where: { if case .event = $0 { true } else { false } }) else { return }
        if case .event(let event) = items.remove(at: index) { inFlightBytes -= event.memoryCost }
        heldBeforeConfigure -= 1
        inFlight -= 1
        droppedBeforeConfigure += 1
    }
}
