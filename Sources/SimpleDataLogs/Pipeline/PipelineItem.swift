/// What flows between the pipeline's stages, in chunks (`[PipelineItem]`), so that one stream
/// hop (about 1 to 2 µs here) is paid per chunk rather than per event.
enum PipelineItem: Sendable {
    /// An event on its way to the journal.
    case event(Event)
    /// The app opted out: the journal deletes every unsent event it holds.
    case optOut
    /// Everything before this item has been handled by the stage that passes it on.
    case barrier(Barrier)
    /// Someone started or stopped using the app (for the sessions stage), at a wall-clock time.
    case activity(ActivityEvent, at: Int64)
    /// The open sessions after this chunk, for the journal to keep, so that a process that dies
    /// mid-session has its sessions ended at the next launch.
    case sessionCheckpoint([SessionRules.Session])
    /// The `app_crashed` event just before this item came from this crash record: the journal
    /// deletes the record once that event is on disk.
    case crashRecordHandedOver(CrashRecordFile)
    /// `reset()`: the sessions stage ends the session of the identity before it (`previousDeviceID`),
    /// so no session outlives a logout, and an activation after it is for the next identity
    /// (`nextDeviceID`: the new device id or install id, if any). Consumed there.
    case identityReset(previousDeviceID: String?, nextDeviceID: String?)
    /// Every intake-log record up to this sequence number has been handled by the stages: once
    /// the journal holds what came before this item, the log may release them (issue 25).
    case logPosition(UInt64)
    /// `rotateIngestKey(to:)`: from here on the outbox's area belongs to this key, and the
    /// uploader sends everything still unsent with it (``KeyRotation``).
    case rotateKey(KeyRotation)
}

/// What the app asked for, in the order it asked: the ordered intake that `track()` and the
/// identity calls share, so that a call made before a `track` applies to that event.
enum IntakeItem: Sendable {
    case event(Event)
    /// An event `track()` published in the intake log (decision 0045): the identity stage reads
    /// it from there. Never written to the log again (it is in it).
    case logged(LoggedRecord)
    case setDeviceID(String?)
    case setDefaultProperties([String: PropertyValue])
    case setEnabled(Bool)
    case barrier(Barrier)
    case activity(ActivityEvent, at: Int64)
    /// See ``PipelineItem/crashRecordHandedOver(_:)``.
    case crashRecordHandedOver(CrashRecordFile)
    /// `reset(deviceID:)`: a logout; the new device id, if any.
    case reset(String?)
    /// Replay only (the intake log, issue 25): sets the identity stage's device id and default
    /// properties as they stood at a point of a dead run, without `reset()`'s side effects (a new
    /// install id, the end of a session). A log's checkpoint is one.
    case restoreIdentity(deviceID: String?, defaults: [String: PropertyValue])
    /// Replay only: what follows, up to the matching ``replayEnds``, is a dead run's, resolved
    /// with that run's identity; the live identity is kept aside meanwhile.
    case replayBegins
    /// Replay only: the live identity comes back (keeping the install id the replay left on disk).
    case replayEnds
    /// `rotateIngestKey(to:)`, in order with the calls around it. Never written to the intake
    /// log: the log is a file, and a key is never stored in clear.
    case rotateKey(KeyRotation)
}
