/// What happened to every event, counted since the client was created.
///
/// The counters obey a conservation law, which the SDK's own tests assert after every scenario:
///
/// ```
/// tracked + recovered == skippedBacklog + invalid + droppedByMiddleware + droppedBeforeConfigure + droppedAtShutdown
///          + deletedByOptOut + evictedByCaps + rejectedByIngest + droppedTooLarge + setAside + lostFromDisk + delivered + pending
/// ```
///
/// ``isBalanced`` checks it. Each side is counted by a different stage, so the law catches an
/// event lost or counted twice between stages. A snapshot is read stage by stage while events
/// move, so it balances exactly only when the pipeline is quiet (after `flush()`, for example).
/// Calls ignored while collection is off (``ignoredWhileDisabled``) or after `shutdown()`
/// (``ignoredAfterShutdown``) were never taken, and stand outside the law.
public struct DeliveryCounters: Sendable, Hashable, CustomStringConvertible {
    /// Events taken by `track()`, and the events the SDK makes itself (autocapture, the
    /// completeness receipts: ``CompletenessReceipts``).
    public var tracked = 0
    /// Events found on disk at launch, left by an earlier run (or adopted from a dead process).
    public var recovered = 0
    /// Events skipped because the backlog of events waiting to be written was full
    /// (``SimpleDataLogsClient/Limits/backlogEvents``, 5,000 by default, or its byte bound).
    public var skippedBacklog = 0
    /// Events dropped by validation (an empty or over-long name, a control character, a time
    /// more than 3,650 days back).
    public var invalid = 0
    /// Events a step of the middleware dropped (``EventMiddleware/Verdict/drop``); never
    /// journaled. ``droppedByStep`` tells them apart by step.
    public var droppedByMiddleware = 0
    /// ``droppedByMiddleware`` by the name of the step that dropped them.
    public var droppedByStep: [String: Int] = [:]
    /// Events dropped because more were tracked before `configure` than the client holds (1,000
    /// by default; `SimpleDataLogsClient(eventsHeldBeforeConfigure:)`).
    public var droppedBeforeConfigure = 0
    /// Events that had not passed the middleware steps when ``SimpleDataLogsClient/shutdown(timeLimit:)``'s
    /// time limit ran out (a slow or blocked step): dropped, never journaled, with one log line.
    /// The time limit bounds the whole shutdown, the steps included; events that had passed the
    /// steps but not reached the journal when a step stayed blocked are counted here too.
    public var droppedAtShutdown = 0
    /// Unsent events deleted by the opt-out.
    public var deletedByOptOut = 0
    /// Events in the oldest batches, dropped when the outbox reached a cap.
    public var evictedByCaps = 0
    /// Events the ingest accepted the batch of but listed in `rejected`.
    public var rejectedByIngest = 0
    /// Events too large to send, even alone in a request.
    public var droppedTooLarge = 0
    /// Events in batches set aside after a 400 or 415 (kept on disk, not sent). Deleted by the
    /// opt-out like every other unsent event.
    public var setAside = 0
    /// Events in batches this client set aside, counted each time one is: unlike ``setAside``
    /// (what is set aside now), it never goes down when a set-aside batch is queued again,
    /// evicted or deleted, so it suits a counter in a metrics system. Batches found set aside at
    /// launch were counted by the run that set them aside. Outside the law, like
    /// ``damagedRecords``: the events are in ``setAside`` (or wherever they went next) already.
    public var setAsideInTotal = 0
    /// Events whose batch file vanished from the outbox behind the SDK's back (deleted by
    /// another program), found when the uploader went to send it. Logged once per client.
    public var lostFromDisk = 0
    /// Events the ingest accepted (202).
    public var delivered = 0
    /// Events still on their way: in memory or on disk.
    public var pending: Int { pendingInMemory + pendingOnDisk }
    /// Events waiting in memory, in no file: taken but not yet journaled, or held by the outbox
    /// because it has no storage folder (none could be made yet, or none is configured) or the
    /// disk refused their write. What `kill -9` would lose. Held events move to
    /// ``pendingOnDisk`` once they are written: the folder is tried again while the client runs.
    public var pendingInMemory = 0
    /// Events in a file of the outbox (the journal or a sealed batch), waiting to be sent. Never
    /// counts an event that is only in memory.
    public var pendingOnDisk = 0
    /// `track()` calls made while collection was off; never taken, outside the law.
    public var ignoredWhileDisabled = 0
    /// `track()` calls made after ``SimpleDataLogsClient/shutdown(timeLimit:)`` began; never
    /// taken, outside the law. The first is logged once.
    public var ignoredAfterShutdown = 0
    /// Events kept without the device id they were given (per event, by `withDeviceID`, or by a
    /// middleware step), because the ingest would refuse it (empty, or over 200 UTF-8 bytes):
    /// they carry no `device_id`, never the client's. The first is logged. Outside the law: the
    /// events themselves go on and are counted wherever they end.
    public var clearedDeviceIDs = 0
    /// Damaged records skipped at launch (a torn tail, a bad checksum); their events were never
    /// counted as recovered, so they stand outside the law. Each file with damage is logged once.
    public var damagedRecords = 0

    /// Creates an all-zero set of counters.
    public init() {}

    /// Everything that happened to the tracked events, added up.
    public var accountedFor: Int {
        skippedBacklog + invalid + droppedByMiddleware + droppedBeforeConfigure + droppedAtShutdown + deletedByOptOut
            + evictedByCaps + rejectedByIngest + droppedTooLarge + setAside + lostFromDisk + delivered + pending
    }

    /// Whether the conservation law holds: `tracked + recovered == accountedFor`.
    public var isBalanced: Bool { tracked + recovered == accountedFor }

    /// The counters on one line, for logs and test failures.
    public var description: String {
        "tracked \(tracked) + recovered \(recovered) = skipped \(skippedBacklog) + invalid \(invalid)"
            + (droppedByMiddleware > 0 ? " + middleware \(droppedByMiddleware)" : "") + " + beforeConfigure \(droppedBeforeConfigure)"
            + (droppedAtShutdown > 0 ? " + atShutdown \(droppedAtShutdown)" : "")
            + " + optOut \(deletedByOptOut) + caps \(evictedByCaps) + rejected \(rejectedByIngest)"
            + " + tooLarge \(droppedTooLarge) + setAside \(setAside) + lost \(lostFromDisk) + delivered \(delivered)"
            + " + pending \(pending) (memory \(pendingInMemory), disk \(pendingOnDisk))"
            + (isBalanced ? "" : " UNBALANCED by \(tracked + recovered - accountedFor)")
    }
}
