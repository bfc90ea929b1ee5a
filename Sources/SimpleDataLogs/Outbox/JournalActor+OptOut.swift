extension JournalActor {
    /// The opt-out: deletes every unsent event this client holds, in memory and on disk (the
    /// journal, sealed, set-aside and temporary files of its area, and the quarantine folder).
    func deleteEverything() {
        sealTimer?.cancel()
        sealTimer = nil
        setAsideRetryTimer?.cancel()
        setAsideRetryTimer = nil
        closeJournal()
        let openEvents = openPayloads.count
        let sealedEvents = sealed.reduce(0) { $0 + $1.eventCount }
        let setAsideEvents = setAside.events
        if let area {
            try? fileSystem.remove(area.journal(openSequence))
            for folder in [area.folder, area.batchesFolder, area.setAsideFolder, area.temporaryFolder] {
                for name in (try? fileSystem.contents(ofDirectory: folder)) ?? []
                where name != "lock" && !fileSystem.isDirectory(folder + "/" + name) {
                    try? fileSystem.remove(folder + "/" + name)
                }
            }
        }
        if let layout {
            // Session state and a saved crash record are unsent data too.
            try? fileSystem.remove(layout.root + "/" + CrashRecordLocation.fileName)
            for name in (try? fileSystem.contents(ofDirectory: layout.quarantineFolder)) ?? [] {
                try? fileSystem.remove(layout.quarantineFolder + "/" + name)
            }
        }
        openPayloads.removeAll()
        openPayloadBytes = 0
        undurableOpenEvents = 0
        pendingJournalBytes.removeAll()
        journalIsComplete = true
        sealed.removeAll()
        setAsideBatches.removeAll()
        counters.update {
            $0.deletedByOptOut += openEvents + sealedEvents + setAsideEvents
            $0.pendingOnDisk -= openEvents + sealedEvents
            $0.setAside -= setAsideEvents
        }
    }
}
