/// The first stage after the intake: applies `setDeviceID`, `setDefaultProperties` and
/// `setEnabled` in the order they were called among the events, validates each event, and passes
/// the survivors on in chunks.
///
/// Why an actor: its state (device id, default properties) changes only in intake order, from
/// one loop, and it must never be read half-updated by the stage after it.
actor IdentityActor {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private var state = IdentityState()
    private let intake: Intake
    private let counters: StageCounters
    private let problemLog: ProblemLog

    init(intake: Intake, counters: StageCounters, problemLog: ProblemLog, executor: ThreadExecutor) {
        self.intake = intake
        self.counters = counters
        self.problemLog = problemLog
        self.executor = executor
    }

    /// Drains the intake at every wake-up until the intake shuts down, then finishes `output`.
    func run(output: AsyncStream<[PipelineItem]>.Continuation) async {
        for await _ in intake.wakeUps {
            drainOnce(into: output)
        }
        // Work enqueued between the last wake-up and the shutdown still goes through.
        drainOnce(into: output)
        output.finish()
    }

    /// The buffer the intake's queue is swapped into, kept with its capacity between drains.
    private var drained: [IntakeItem] = []

    private func drainOnce(into output: AsyncStream<[PipelineItem]>.Continuation) {
        intake.drain(into: &drained)
        let chunk = process(drained)
        drained.removeAll(keepingCapacity: true)
        if !chunk.isEmpty { output.yield(chunk) }
    }

    /// Applies one drained run of intake items, in order.
    func process(_ items: [IntakeItem]) -> [PipelineItem] {
        var output: [PipelineItem] = []
        output.reserveCapacity(items.count)
        var problems: [EventValidator.Problem] = []
        var invalid = 0
        var invalidCost = 0
        for item in items {
            switch item {
            case .event(var event):
                if EventValidator.validate(&event, problems: &problems) {
                    state.apply(to: &event, problems: &problems)
                    output.append(.event(event))
                } else {
                    invalid += 1
                    invalidCost += event.memoryCost
                }
            case .setDeviceID(let id):
                if state.setDeviceID(id) { problemLog.reportInvalidDeviceID() }
            case .setDefaultProperties(let properties):
                state.setDefaultProperties(properties, problems: &problems)
            case .setEnabled(let enabled):
                if !enabled { output.append(.optOut) }
            case .barrier(let barrier):
                output.append(.barrier(barrier))
            case .crashRecordHandedOver(let record):
                output.append(.crashRecordHandedOver(record))
            case .activity(let activity, let time):
                output.append(.activity(activity, at: time))
            }
        }
        if invalid > 0 {
            counters.update { $0.invalid += invalid }
            if let ended = intake.release(invalid, bytes: invalidCost) { problemLog.reportBacklogCleared(ended) }
        }
        problemLog.report(problems)
        return output
    }
}
