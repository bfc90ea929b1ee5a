extension OutboxActor {
    /// The opt-out: deletes every unsent event this client holds, in memory and on disk (the
    /// journal, sealed, set-aside and temporary files of its area, and the quarantine folder's
    /// files but those of another key or endpoint). Its `lock` and `owner` files stay.
    func deleteEverything() {
        sealTimer.cancel()
        setAsideRetryTimer.cancel()
        closeJournal()
        sealer.dropSpares() // deleted with the rest of `tmp/` below
        let openEvents = state.open.payloads.count
        let sealedEvents = queue.sealedUsage.events
        let setAsideEvents = queue.setAsideUsage.events
        if let area {
            try? fileSystem.remove(area.journal(state.open.sequence))
            for folder in [area.folder, area.batchesFolder, area.setAsideFolder, area.temporaryFolder] {
                for name in (try? fileSystem.contents(ofDirectory: folder)) ?? []
                where name != "lock" && name != "owner" && !fileSystem.isDirectory(folder + "/" + name) {
                    // This run's intake log is in the root, not here: it stays (track() appends
                    // to it), its events wiped in place once released (``releaseIntakeLog()``).
                    try? fileSystem.remove(folder + "/" + name)
                }
            }
        }
        if let layout {
            // Session state and saved crash records are unsent data too: those handed over with
            // their events, and those of ended processes not taken yet (live ones stay locked).
            giveUpCrashRecords(discard: true)
            for leftover in CrashRecordFiles.takeLeftovers(in: layout.root, owner: owner, formerOwners: formerOwners, fileSystem: fileSystem) { leftover.file.discard() }
            // Another key's quarantined batches are that client's to send or delete.
            for name in (try? fileSystem.contents(ofDirectory: layout.quarantineFolder)) ?? [] where quarantined(name)?.isOurs != false {
                try? fileSystem.remove(layout.quarantineFolder + "/" + name)
            }
        }
        state.open.discard()
        state.forgetOpenBatch()
        state.journalIsComplete = true
        let removed = queue.removeAll().sealed.map(\.id)
        if !removed.isEmpty { unpostedChanges.append(.left(removed)) }
        updateCounters {
            $0.deletedByOptOut += openEvents + sealedEvents + setAsideEvents
            $0.pendingOnDisk -= openEvents + sealedEvents
            $0.setAside -= setAsideEvents
        }
        // The ledger file went with the rest; what it counted is never reported.
        wipeLedger()
    }
}
