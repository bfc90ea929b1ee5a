import Foundation

/// What the outbox keeps for autocapture, beside the events: the open sessions (so that a
/// process that dies mid-session has them ended at the next launch) and whether this storage
/// folder has seen a launch before (`is_first_launch`).
extension OutboxActor {
    static let sessionsFileName = "sessions.json"
    static let launchMarkerName = "launched-before"

    /// Keeps the open sessions in `<area>/sessions.json`, replaced atomically (temporary file,
    /// then rename), once per chunk that changed them. Not synced: it must survive `kill -9`,
    /// and after a power loss the worst case is a session ended a little early.
    func keep(_ sessions: [SessionRules.Session]) {
        guard let area else { return }
        let path = area.folder + "/" + Self.sessionsFileName
        guard !sessions.isEmpty else {
            try? fileSystem.remove(path)
            return
        }
        guard let data = try? JSONEncoder().encode(sessions) else { return }
        let temporary = area.temporaryFolder + "/" + Self.sessionsFileName
        do {
            let descriptor = try openRecreatingFolders(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
            defer { fileSystem.close(descriptor) }
            try writeAll(Array(data), to: descriptor, path: temporary)
            try fileSystem.rename(temporary, to: path)
        } catch {
            reportDiskTrouble(error, doing: "keep the open sessions")
        }
    }

    /// At launch: the sessions a dead process left open in `folder`, read and removed.
    func takeLeftoverSessions(in folder: String) -> [SessionRules.Session] {
        let path = folder + "/" + Self.sessionsFileName
        guard fileSystem.isRegularFile(path), let bytes = try? fileSystem.read(path) else { return [] }
        try? fileSystem.remove(path)
        return (try? JSONDecoder().decode([SessionRules.Session].self, from: Data(bytes))) ?? []
    }

    /// Ends each leftover session at its last activity, as ordinary events of this launch: each
    /// `session_end` passes the app's steps first, as the sessions stage's own do (a step may
    /// scrub or drop it; a drop is counted).
    func endLeftoverSessions(_ sessions: [SessionRules.Session]) {
        guard !sessions.isEmpty else { return }
        var ids = EventIDGenerator()
        intake.admitGenerated(sessions.count)
        var tally = ChunkTally()
        var problems: [EventValidator.Problem] = []
        for session in sessions.sorted(by: { $0.lastActivity < $1.lastActivity }) {
            var event = SessionRules.endEvent(for: session, ids: &ids)
            if middleware.pass(&event, tally: &tally, problems: &problems, problemLog: problemLog) { append(event) }
        }
        problemLog.report(problems)
        tally.commit(intake: intake, counters: counters, problemLog: problemLog)
        logger.info("Ended \(sessions.count) session(s) left open by an earlier run, at their last activity.")
    }

    /// Whether this folder has seen a launch before; marks it seen.
    func takeFirstLaunchFlag() -> Bool {
        guard let layout else { return false }
        let marker = layout.root + "/" + Self.launchMarkerName
        if fileSystem.isRegularFile(marker) { return false }
        if let descriptor = try? fileSystem.open(marker, flags: O_WRONLY | O_CREAT, mode: 0o600) {
            fileSystem.close(descriptor)
        }
        return true
    }
}
