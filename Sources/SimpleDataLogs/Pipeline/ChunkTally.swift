/// What one stage's pass over a chunk did with its events, counted once per chunk (one lock for
/// the counters, one for the intake), not once per event.
struct ChunkTally: Sendable {
    /// Events validation dropped (before or after the steps).
    var invalid = 0
    /// Events the steps dropped, by step name.
    var droppedBySteps: [String: Int] = [:]
    /// The backlog share of the events that end here.
    var releasedCost = 0
    /// Events kept without the device id they were given, which the ingest would refuse.
    var clearedDeviceIDs = 0

    /// Events that end in this stage.
    var ended: Int { invalid + droppedBySteps.values.reduce(0, +) }

    /// Releases the ended events' share of the backlog and counts them, unless shutdown has
    /// already counted them as dropped at shutdown (a stage that outlived it, behind a blocked
    /// step): then it counts nothing, so no event is counted twice.
    func commit(intake: Intake, counters: StageCounters, problemLog: ProblemLog) {
        let ended = ended
        if ended > 0 {
            let (released, backlogCleared) = intake.releaseUnlessSettled(ended, bytes: releasedCost)
            if let backlogCleared { problemLog.reportBacklogCleared(backlogCleared) }
            guard released else { return }
        }
        guard ended > 0 || clearedDeviceIDs > 0 else { return }
        counters.update { counters in
            counters.invalid += invalid
            counters.clearedDeviceIDs += clearedDeviceIDs
            for (step, count) in droppedBySteps {
                counters.droppedByMiddleware += count
                counters.droppedByStep[step, default: 0] += count
            }
        }
    }
}
