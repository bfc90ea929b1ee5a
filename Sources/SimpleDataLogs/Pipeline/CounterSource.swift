/// Where a client's counters are read: the intake's part and the stages' part, put together.
///
/// Held by the client (for ``SimpleDataLogsClient/counters``) and by the metric snapshots'
/// polling tasks, which must not hold the client itself: a client released without `shutdown()`
/// still goes away while someone iterates its snapshots.
struct CounterSource: Sendable {
    let intake: Intake
    let stages: StageCounters

    /// What happened to every event so far.
    var counters: DeliveryCounters {
        merging(intake: intake.snapshot, stages: stages.snapshot)
    }

    /// The counters and the answers heard so far, as one metric snapshot. Two locks, one after
    /// the other, never nested: the same cost as reading ``counters``.
    var metricSnapshot: MetricSnapshot {
        let front = intake.snapshot
        let (stageCounters, answers) = stages.snapshotWithAnswers
        return MetricSnapshot(
            counters: merging(intake: front, stages: stageCounters),
            requestsAnswered: answers.count, lastRoundTrip: answers.lastRoundTrip
        )
    }

    private func merging(
        intake front: Intake.IntakeCounts,
        stages: DeliveryCounters
    ) -> DeliveryCounters {
        var counters = stages
        counters.tracked = front.tracked
        counters.skippedBacklog = front.skippedBacklog
        counters.droppedBeforeConfigure = front.droppedBeforeConfigure
        counters.ignoredWhileDisabled = front.ignoredWhileDisabled
        counters.ignoredAfterShutdown = front.ignoredAfterShutdown
        counters.droppedAtShutdown = front.droppedAtShutdown
        // Not yet journaled, plus what the outbox holds in memory (no folder, a refused write).
        counters.pendingInMemory = front.inFlight + stages.pendingInMemory
        return counters
    }
}
