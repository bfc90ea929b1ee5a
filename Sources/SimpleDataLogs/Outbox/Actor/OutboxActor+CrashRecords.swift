/// The crash records whose `app_crashed` events came through the pipeline: each is deleted only
/// once its event is on disk, so that a launch killed in between sends the crash again (under
/// the same event id, which the edge counts once) instead of losing it.
extension OutboxActor {
    /// `.crashRecordHandedOver`: the record's event went just before it.
    func takeOver(_ record: CrashRecordFile) {
        switch state.crashRecordHandedOver(record, collecting: intake.isEnabled) {
        case .keepUntilOnDisk: break
        // The event never reached the journal (dropped on the way): the record stays on disk,
        // unlocked, for the next launch.
        case .leaveForNextLaunch: record.release()
        // Opted out meanwhile: a saved crash is unsent data, discarded with the rest.
        case .discard: record.discard()
        }
    }

    /// Deletes the records whose events are on disk; called after every chunk.
    func discardCrashRecordsOnDisk() {
        guard !state.crashRecordsAwaitingDisk.isEmpty else { return }
        for record in state.takeCrashRecordsOnDisk(everythingOnDisk: holdsEverythingOnDisk) { record.discard() }
    }

    /// At ``close()`` and the opt-out: the records still waiting are given up, kept on disk
    /// (`discard` false) for the next launch, or deleted.
    func giveUpCrashRecords(discard: Bool) {
        for record in state.giveUpCrashRecords() {
            if discard { record.discard() } else { record.release() }
        }
    }

    /// Whether every event this journal has taken would survive `kill -9`: written to a whole
    /// journal file in an area, or to a batch file.
    var holdsEverythingOnDisk: Bool {
        area != nil && state.journalIsComplete && state.uncommittedEvents == 0 && state.undurableOpenEvents == 0
            && !queue.holdsBatchesInMemory
    }
}
