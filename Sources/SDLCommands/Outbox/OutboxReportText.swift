import SimpleDataLogs

/// ``OutboxReport`` as the lines `sdl outbox` prints.
enum OutboxReportText {
    static func lines(_ report: OutboxReport) -> [String] {
        var lines = ["outbox \(escaped(report.root))"]
        if report.areas.isEmpty { lines.append("  no areas: no client has used this folder yet") }
        for area in report.areas {
            lines.append("  area \(escaped(area.name)): \(lockText(area.lock))")
            lines.append("    \(ownerText(area.owner))")
            lines += files("journal", area.journals, empty: "no open journal")
            lines += files("batches/", area.batches, empty: "no sealed batches")
            lines += files("set-aside/", area.setAside, empty: nil)
            if !area.setAside.isEmpty {
                lines.append("      set aside after a 400 or 415: not sent until `sdl outbox requeue \(escaped(report.root))`")
            }
            if !area.temporary.isEmpty {
                lines.append("    tmp/: \(area.temporary.count) half-sealed files (the next client deletes them; their events are still in the journal)")
            }
        }
        for log in report.intakeLogs {
            let whose = log.tag.map { "for the destination tagged \($0)" } ?? "for any destination"
            let state: String
            switch log.lock {
            case .held(let pid): state = "its run is alive\(pid.map { " (pid \($0))" } ?? ""); the events are on their way to its journal"
            case .free where log.events == 0: state = "its run ended with everything journaled; the next launch deletes it"
            case .free: state = "its run ended; the next launch or `sdl outbox drain` with its key replays them"
            case .unknown(let why): state = "whether its run is alive is unknown (\(why))"
            }
            lines.append("  intake log \(escaped(log.name)): \(log.events) events not yet journaled, \(whose); \(state)\(log.problem.map { "; \($0)" } ?? "")")
        }
        if !report.quarantined.isEmpty {
            lines.append("  quarantine/: \(report.quarantined.count) files the SDK could not read, kept for you to look at:")
            for file in report.quarantined { lines.append("    \(escaped(file.name))  \(file.byteCount) bytes") }
        }
        for stray in report.strayEntries { lines.append("  \(escaped(stray)): not a folder (ignored by the SDK)") }
        for link in report.linkedFolders {
            lines.append("  \(escaped(link)): a link; the SDK never follows a link inside its storage folder (remove it to use the folder)")
        }
        lines.append("  total: \(report.pendingEvents) events waiting, \(report.intakeLogEvents) in intake logs, \(report.setAsideEvents) set aside, \(report.damagedRecords) damaged records, \(report.quarantined.count) quarantined files")
        return lines
    }

    private static func files(_ label: String, _ files: [OutboxFileReport], empty: String?) -> [String] {
        guard !files.isEmpty else { return empty.map { ["    \(label): \($0)"] } ?? [] }
        var lines = ["    \(label): \(files.count) files, \(files.reduce(0) { $0 + $1.events }) events"]
        for file in files {
            var line = "      \(escaped(file.name))  \(file.events) events, \(file.byteCount) bytes"
            if let oldest = file.oldestTimestamp, let newest = file.newestTimestamp {
                line += ", \(EventLine.time(oldest, withDate: true)) … \(EventLine.time(newest, withDate: true))"
            }
            lines.append(line)
            if !file.damage.isEmpty {
                let runs = file.damage.map { "\($0.length) bytes at offset \($0.offset)" }.joined(separator: ", ")
                lines.append("        damaged: \(file.damage.count) (\(runs)); every intact record around it is kept")
            }
            if let problem = file.problem { lines.append("        \(escaped(problem))") }
        }
        return lines
    }

    /// Which key and endpoint the area's files wait for; the batches listed under it are sent
    /// only by a client configured with both.
    private static func ownerText(_ owner: OutboxOwnerReport) -> String {
        switch owner {
        case .recorded(let owner):
            return "waiting for key \(escaped(owner.keyText)) at \(escaped(owner.endpoint)): only a client with that key and endpoint sends the files below"
        case .none:
            return "no key recorded (an earlier version, or a client that could not send): the next client of any key sends the files below"
        case .unreadable(let why):
            return "owner file unreadable (\(escaped(why))): no client sends the files below until it reads"
        }
    }

    static func escaped(_ text: String) -> String { TerminalText.escaped(text) }

    private static func lockText(_ lock: OutboxLockReport) -> String {
        guard lock.exists else { return "no lock file (never opened by a client)" }
        let owner = lock.ownerPID.map { pid in "pid \(pid) (\(lock.ownerAlive == true ? "running" : "not running"))" } ?? "no pid recorded"
        switch lock.state {
        case .held(let pid):
            let holder = pid.map { " by pid \($0)" } ?? ""
            return "in use: lock held\(holder), per \(lock.method); last owner \(owner)"
        case .free:
            return "free (per \(lock.method)); last owner \(owner); the next client adopts its files"
        case .unknown(let why):
            return "lock state unknown (\(why)); last owner \(owner)"
        }
    }
}
