import Foundation

/// The intake log's side in the outbox (issue 25): `configure` made this run's log (in the root,
/// ``IntakeLogFiles``); once the outbox holds its area it replays what ended runs' logs still held
/// in front of what the intake took since, and releases this run's log as the journal takes what
/// it holds.
extension OutboxActor {
    /// How many 128-byte slots a log gets for a backlog of `events`: three per event the backlog
    /// may hold (most events take one or two), at least 4 MiB, at most 8 MiB. Launch reads every
    /// earlier log whole: a larger file made launch slower than a killed server's restarts
    /// (measured, decision 0036). Past it, calls wait in memory, never skipped for it.
    static func intakeLogSlots(backlogEvents: Int) -> Int {
        min(max(backlogEvents * 3, 32_768), 65_536)
    }

    /// The number in the name of a log an earlier version kept in its area (`intake-<n>.log`),
    /// or nil for another file.
    static func intakeLogNumber(_ name: String) -> Int? {
        guard name.hasPrefix("intake-"), name.hasSuffix(".log") else { return nil }
        return Int(name.dropFirst("intake-".count).dropLast(".log".count))
    }

    /// The logs an earlier version kept in the area `folder` (`intake-<n>.log`), oldest first
    /// (regular files only: a link is never read). This version keeps its logs in the root
    /// (``IntakeLogFiles``); these are replayed once, after an upgrade.
    func intakeLogs(in folder: String) -> [String] {
        ((try? fileSystem.contents(ofDirectory: folder)) ?? [])
            .compactMap { name in Self.intakeLogNumber(name).map { (number: $0, name: name) } }
            .sorted { $0.number < $1.number }
            .map { folder + "/" + $0.name }
            .filter { fileSystem.isRegularFile($0) }
    }

    /// Takes the logs ended runs left in the root for this client's destination or a key it
    /// replaced (``IntakeLogFiles/takeLeftovers(in:owners:fileSystem:)``), oldest first. Each
    /// stays locked until its file is deleted (``removeReplayedLog(_:)``).
    /// - Returns: Their paths.
    func takeLeftoverIntakeLogs(in root: String) -> [String] {
        let owners = (owner.map { [$0] } ?? []) + formerOwners
        let taken = IntakeLogFiles.takeLeftovers(in: root, owners: owners, fileSystem: fileSystem)
        for log in taken { takenIntakeLogs[log.path] = log.descriptor }
        return taken.map(\.path)
    }

    /// Reads each earlier run's log (this area's, then those of the areas adopted) and queues
    /// what each held after the journal's mark in front of everything held since launch
    /// (bracketed). A file goes as soon as this run's log holds its replay; one whose replay did
    /// not fit goes once the journal holds the replay (``releaseIntakeLog()``), so a kill before
    /// that replays it again (the edge drops the copies by event id). Without a log of this
    /// run's, the files go at once (kept, they would be replayed at every launch).
    func replayIntakeLogs(_ paths: [String]) {
        let replays = paths.map(readIntakeLog(at:))
        let (inLog, through) = intake.releaseHeld(replaying: replays)
        if let through { replayThrough = through }
        let events = replays.reduce(0) { $0 + $1.events }
        replayPending = events > 0
        replayedEvents = events
        counters.update { $0.recovered += events }
        if events > 0 {
            logger.info("Replaying \(events) event(s) an earlier run had tracked but not yet written (the intake log).")
        }
        for (path, held) in zip(paths, inLog) {
            if held || intakeLogPath == nil { removeReplayedLog(path) } else { replayedLogsToRemove.append(path) }
        }
    }

    /// Deletes an earlier run's log whose replay is safe (in this run's log, or in the journal),
    /// then gives back its lock; an adopted area's folder goes with its last file.
    func removeReplayedLog(_ path: String) {
        try? fileSystem.remove(path)
        if let descriptor = takenIntakeLogs.removeValue(forKey: path) {
            fileSystem.close(descriptor)
            return
        }
        let folder = (path as NSString).deletingLastPathComponent
        if folder != area?.folder { try? fileSystem.removeDirectory(folder) }
    }

    /// Reads the intake log a run left at `path` and plans its replay. Read with `read(2)`, never
    /// mapped: a file truncated behind our back cannot fault the reader.
    func readIntakeLog(at path: String) -> IntakeLogReplay {
        let bytes: [UInt8]
        do { bytes = try fileSystem.read(path) } catch {
            logger.warning("The intake log \(path) could not be read (\(error)); what it held is not replayed.")
            return IntakeLogReplay()
        }
        switch IntakeLogFormat.decode(bytes) {
        case .success(let contents):
            let replay = IntakeLogReplay(contents)
            if replay.unreadable > 0 {
                logger.warning("The intake log \(path) had \(replay.unreadable) unreadable record(s) after the journal's mark; the rest is replayed.")
                counters.update { $0.damagedRecords += replay.unreadable }
            }
            return replay
        case .failure(let reason):
            // A run killed while making its log leaves zeros (the header is written last of all):
            // nothing was logged in it, and there is nothing to say.
            if bytes.prefix(IntakeLogFormat.headerSize).allSatisfy({ $0 == 0 }) {
                logger.debug("The intake log \(path) was never started (a run killed while making it); deleted.")
            } else {
                logger.warning("The file \(path) is not an intake log this SDK can read (\(reason)); nothing of it is replayed, and it is deleted.")
            }
            return IntakeLogReplay()
        }
    }

    /// After a `write(2)` that left nothing of the open batch unwritten: every log record the
    /// stages had handled is in the journal, so the log may let it go. Not while any batch is
    /// held in memory (a full disk failed its seal): the log is then all that keeps those events
    /// from a kill.
    func releaseIntakeLog() {
        guard intakeLogPath != nil, intakeLogPosition > 0, area != nil, state.journalIsComplete, state.open.unwrittenRecords.isEmpty,
              queue.heldInMemoryEvents == 0 else { return }
        intake.releaseLog(through: intakeLogPosition)
        if intakeLogPosition >= replayThrough {
            replayedJournalIDs = []
            // The journal holds every replayed call: the logs they came from may go.
            for path in replayedLogsToRemove { removeReplayedLog(path) }
            replayedLogsToRemove = []
        }
        if wipesIntakeLog {
            wipesIntakeLog = false
            intake.wipeReleasedLog()
        }
    }

    /// Whether `event` is a replayed copy of one the journal already held: a kill between the
    /// journal's `write(2)` and the log's release replays what was written last.
    func isReplayedCopy(_ event: Event) -> Bool {
        !replayedJournalIDs.isEmpty && replayedJournalIDs.remove(event.id) != nil
    }

    /// The event id a journal record's payload names (``EventEncoder`` writes it right after the
    /// name), or nil. Only for the replay's copies: a miss sends a copy the edge deduplicates.
    static func eventID(inPayload payload: [UInt8]) -> UUID? {
        let key = Array(#","event_id":""#.utf8)
        var index = 0
        while index + key.count + 36 <= payload.count {
            if payload[index] == key[0], payload[index..<(index + key.count)].elementsEqual(key) {
                let start = index + key.count
                return String(bytes: payload[start..<(start + 36)], encoding: .utf8).flatMap(UUID.init(uuidString:))
            }
            index += 1
        }
        return nil
    }
}
