import Foundation

/// The intake log's side in the outbox (issue 25): made at launch, in the area, after reading
/// what a dead run left in it; released as the journal takes what it holds.
extension OutboxActor {
    /// The intake log's file name in an area.
    static let intakeLogName = "intake.log"

    /// How many 128-byte slots a log gets for a backlog of `events`: three per event the backlog
    /// may hold (most events take one or two), at least 4 MiB, at most 64 MiB.
    static func intakeLogSlots(backlogEvents: Int) -> Int {
        min(max(backlogEvents * 3, 32_768), 524_288)
    }

    /// Reads the intake log a run left at `path` and plans its replay; nothing when there is
    /// none. Read with `read(2)`, never mapped: a file truncated behind our back cannot fault.
    func readIntakeLog(at path: String) -> IntakeLogReplay {
        guard fileSystem.isRegularFile(path) else { return IntakeLogReplay() }
        let bytes: [UInt8]
        do { bytes = try fileSystem.read(path) } catch {
            logger.warning("The intake log \(path) could not be read (\(error)); what it held is not replayed.")
            return IntakeLogReplay()
        }
        switch IntakeLogFormat.decode(bytes) {
        case .success(let contents):
            let replay = IntakeLogReplay(contents)
            if replay.unreadable > 0 || contents.damagedSlots > 0 {
                logger.warning("The intake log \(path) had \(replay.unreadable) unreadable record(s) after the journal's mark (\(contents.damagedSlots) damaged slot(s) in all); the rest is replayed.")
                counters.update { $0.damagedRecords += replay.unreadable }
            }
            return replay
        case .failure(let reason):
            logger.warning("The file \(path) is not an intake log this SDK can read (\(reason)); it is replaced, and nothing of it is replayed.")
            return IntakeLogReplay()
        }
    }

    /// Makes this run's intake log and hands it to the intake, with what the dead runs' logs
    /// (`left`: this area's, then those of the areas adopted) still held: a fresh file in `tmp/`
    /// takes a checkpoint and the replay, then replaces the old log in one rename, so a kill at
    /// any point leaves one log that holds the replay. The adopted areas' logs go after that.
    /// Without a file (it cannot be made, or the replay does not fit) the replay still runs,
    /// from memory, and the old log stays for the next launch.
    func openIntakeLog(in area: AreaLayout, replaying replay: IntakeLogReplay, adoptedLogs: [String], slotCount: Int) {
        let path = area.folder + "/" + Self.intakeLogName
        let temporary = area.temporaryFolder + "/" + Self.intakeLogName
        if replay.events > 0 {
            logger.info("Replaying \(replay.events) event(s) an earlier run had tracked but not yet written (the intake log).")
        }
        counters.update { $0.recovered += replay.events }
        var failure: String?
        guard let file = IntakeLogFile.create(at: temporary, slotCount: slotCount, firstSequence: (replay.lastSequence ?? 0) + 1, failure: &failure) else {
            try? fileSystem.remove(temporary)
            logger.warning("The intake log could not be made (\(failure ?? "unknown")): events wait in memory until the journal holds them, as without it.")
            intake.installLog(nil, replay: replay.items, events: replay.events, bytes: replay.eventBytes)
            return
        }
        var writer = IntakeLogWriter(file: file, slotCount: slotCount, lastSequence: nil)
        do {
            guard writer.start(replaying: replay.items) else {
                throw FileSystemError(code: ENOSPC, operation: "replay into the intake log", path: temporary)
            }
            try fileSystem.rename(temporary, to: path)
        } catch {
            file.close()
            try? fileSystem.remove(temporary)
            logger.warning("The intake log could not be made (\(error)): events wait in memory until the journal holds them, as without it.")
            intake.installLog(nil, replay: replay.items, events: replay.events, bytes: replay.eventBytes)
            return
        }
        for adopted in adoptedLogs {
            try? fileSystem.remove(adopted)
            try? fileSystem.removeDirectory((adopted as NSString).deletingLastPathComponent)
        }
        intakeLog = file
        replayThrough = writer.lastSequence ?? 0
        intake.installLog(writer, replay: replay.items, events: replay.events, bytes: replay.eventBytes)
    }

    /// After a `write(2)` that left nothing of the open batch unwritten: every log record the
    /// stages had handled is in the journal, so the log may let it go.
    func releaseIntakeLog() {
        guard let intakeLog, intakeLogPosition > 0, area != nil, state.journalIsComplete, state.open.unwrittenRecords.isEmpty else { return }
        intakeLog.release(through: intakeLogPosition)
        if intakeLogPosition >= replayThrough { replayedJournalIDs = [] }
        if wipesIntakeLog {
            wipesIntakeLog = false
            intakeLog.wipeReleased()
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
        guard payload.count > key.count + 36 else { return nil }
        var index = 0
        while index + key.count + 36 <= payload.count {
            if payload[index] == key[0], Array(payload[index..<(index + key.count)]) == key {
                let start = index + key.count
                return String(bytes: payload[start..<(start + 36)], encoding: .utf8).flatMap(UUID.init(uuidString:))
            }
            index += 1
        }
        return nil
    }
}
