package import SimpleDataLogs

/// What ``OutboxInspector/inspect(root:)`` found in one outbox folder.
package struct OutboxReport: Sendable {
    /// The folder looked at.
    package var root: String
    /// Whether it exists (a client creates it at `configure`).
    package var exists: Bool
    /// One entry per folder under `areas/`, by name.
    package var areas: [OutboxAreaReport] = []
    /// Files in `quarantine/`: unreadable files the SDK moved aside, never deleted.
    package var quarantined: [OutboxFileReport] = []
    /// Entries under `areas/` that are not folders.
    package var strayEntries: [String] = []
    /// Folders of the outbox that are links: never followed, by the SDK or by this report.
    package var linkedFolders: [String] = []
    /// The runs' intake logs in the root (`intake-<id>-<tag>.log`), oldest first.
    package var intakeLogs: [OutboxIntakeLogReport] = []

    /// Events waiting to be sent: journals and sealed batches of every area.
    package var pendingEvents: Int { areas.reduce(0) { $0 + $1.pendingEvents } }
    /// Events the intake logs hold that no journal held yet (``OutboxIntakeLogReport/events``).
    package var intakeLogEvents: Int { intakeLogs.reduce(0) { $0 + $1.events } }
    /// Events in set-aside batches.
    package var setAsideEvents: Int { areas.reduce(0) { $0 + $1.setAside.reduce(0) { $0 + $1.events } } }
    /// Damaged runs in every file.
    package var damagedRecords: Int { areas.reduce(0) { $0 + $1.allFiles.reduce(0) { $0 + $1.damage.count } } }
}

/// One area: one client's files and its lock.
package struct OutboxAreaReport: Sendable {
    /// `a0`, `a1`, …
    package var name: String
    /// The area's folder.
    package var path: String
    /// Who holds the area.
    package var lock: OutboxLockReport
    /// Which key and endpoint its events wait for (its `owner` file).
    package var owner = OutboxOwnerReport.none
    /// `journal-<seq>.log`: open batches (or ones a crash left, re-sealed at the next launch).
    package var journals: [OutboxFileReport] = []
    /// `batches/`: sealed, waiting to be sent, oldest first.
    package var batches: [OutboxFileReport] = []
    /// `set-aside/`: refused by the ingest (400, 415); kept, not sent until requeued.
    package var setAside: [OutboxFileReport] = []
    /// `tmp/`: half-sealed files, deleted by the next launch.
    package var temporary: [String] = []

    /// Every journal, batch and set-aside file.
    package var allFiles: [OutboxFileReport] { journals + batches + setAside }
    /// Events in journals and sealed batches.
    package var pendingEvents: Int { (journals + batches).reduce(0) { $0 + $1.events } }
}

/// One file's contents, read by the record framing.
package struct OutboxFileReport: Sendable {
    /// The file's name.
    package var name: String
    /// Its full path.
    package var path: String
    /// Its size in bytes.
    package var byteCount: Int
    /// Intact event records (a batch's header record is not an event).
    package var events = 0
    /// The smallest `ts` of its events, in milliseconds since the Unix epoch.
    package var oldestTimestamp: Int64?
    /// The largest `ts`.
    package var newestTimestamp: Int64?
    /// Runs of bytes that held no intact record (a torn tail, a bad checksum).
    package var damage: [OutboxDamage] = []
    /// Why the file could not be read as it should, if so.
    package var problem: String?
}

/// A damaged run in a file.
package struct OutboxDamage: Sendable, Hashable {
    /// Where it starts.
    package var offset: Int
    /// How many bytes.
    package var length: Int
}

/// An area's lock file, and who holds it.
package struct OutboxLockReport: Sendable {
    /// Whether it is held, and how that was found out.
    package enum State: Sendable, Equatable {
        /// A process holds the `flock` (its pid when the kernel says which).
        case held(byPID: Int32?)
        /// Nobody holds it: the owner is gone, and the next client adopts the area.
        case free
        /// Could not tell.
        case unknown(String)
    }

    /// Whether the lock file exists.
    package var exists: Bool
    /// The pid written in it (`pid N`) by the client that took it last.
    package var ownerPID: Int32?
    /// Whether that pid is a running process (`kill(pid, 0)`); pids are reused, so read this
    /// together with ``state``.
    package var ownerAlive: Bool?
    /// Whether the lock is held.
    package var state = State.unknown("not checked")
    /// How ``state`` was found: `/proc/locks` or `flock probe`.
    package var method = ""
}

/// What ``OutboxInspector/requeueSetAside(root:)`` moved.
package struct RequeueOutcome: Sendable {
    /// Each file moved, as `<area>/batches/<name>`.
    package var moved: [String] = []
    /// Files left where they were, with the reason.
    package var failures: [String] = []
}

/// Why ``OutboxInspector/requeueSetAside(root:)`` moved nothing.
package enum RequeueRefusal: Error, Sendable, Equatable {
    /// There is no outbox folder there.
    case noOutbox(String)
    /// A live process holds this area; it owns the files.
    case areaInUse(area: String, ownerPID: Int32?)
    /// The area's lock could not be taken for another reason.
    case cannotLock(area: String, reason: String)
}

/// An area's `owner` file: the key (in part) and endpoint its events were tracked for; only a
/// client configured with both sends them.
package enum OutboxOwnerReport: Sendable, Equatable {
    /// No `owner` file: an area of an earlier version, or of a client that could not send; the
    /// next client of any key takes its events.
    case none
    /// Recorded for this key (redacted, as the file holds it) and events URL.
    case recorded(AreaOwner)
    /// An `owner` file that cannot be read or is not one the SDK wrote; no client takes the
    /// area's events while it stays so.
    case unreadable(String)
}

/// One run's intake log as `sdl outbox` reads it: what its run tracked that no journal held yet
/// when the file was last written, and whether that run is alive (its `flock`).
package struct OutboxIntakeLogReport: Sendable {
    /// The file's name.
    package var name: String
    /// Its size in bytes.
    package var byteCount: Int
    /// Events after the released mark: a live run's are on their way to the journal; an ended
    /// run's are replayed by the next launch (or `sdl outbox drain`) with its key.
    package var events = 0
    /// The destination's tag in the name (``AreaOwner/tag``), nil for an untagged log.
    package var tag: String?
    /// Whether a live process holds the log (`/proc/locks`, or a probe), as for an area.
    package var lock = OutboxLockReport.State.unknown("not checked")
    /// Why the file could not be read as a log, if it could not.
    package var problem: String?
}
