/// The running stages of one configured client, wired together, and the one task that owns them.
///
/// ```
/// track() ──▶ Intake ──wake-ups──▶ IdentityActor ──[PipelineItem]──▶ SessionsActor ──[PipelineItem]──▶ JournalActor
///             (lock)  AsyncStream<Void>             AsyncStream                       AsyncStream         (own thread)
/// ```
///
/// The chunk streams are unbounded on purpose: the intake admits at most 5,000 events that are
/// not yet written, so nothing downstream can grow past that, and a bounded stream would have to
/// drop (losing events) or block (which a stream cannot do).
final class Pipeline: Sendable {
    let identity: IdentityActor
    let sessions: SessionsActor
    let journal: JournalActor
    private let stagesExecutor: ThreadExecutor
    private let journalExecutor: ThreadExecutor
    private let intake: Intake
    /// Owns the three stage loops; ends when the intake shuts down and every stage has drained.
    private let task: Task<Void, Never>

    init(
        intake: Intake, counters: StageCounters, logger: SDKLogger, directory: String?,
        clock: any Clock<Duration>, policy: SealPolicy, hooks: TestHooks
    ) {
        self.intake = intake
        let problemLog = ProblemLog(logger: logger)
        stagesExecutor = ThreadExecutor(name: "SimpleDataLogs.stages")
        journalExecutor = ThreadExecutor(name: "SimpleDataLogs.journal")
        let identity = IdentityActor(intake: intake, counters: counters, problemLog: problemLog, executor: stagesExecutor)
        let sessions = SessionsActor(executor: stagesExecutor)
        let journal = JournalActor(
            directory: directory, fileSystem: hooks.fileSystem, logger: logger, problemLog: problemLog,
            counters: counters, intake: intake, clock: clock, hooks: hooks, policy: policy, executor: journalExecutor
        )
        self.identity = identity
        self.sessions = sessions
        self.journal = journal
        let (toSessions, toSessionsInput) = AsyncStream.makeStream(of: [PipelineItem].self, bufferingPolicy: .unbounded)
        let (toJournal, toJournalInput) = AsyncStream.makeStream(of: [PipelineItem].self, bufferingPolicy: .unbounded)
        task = Task {
            await withTaskGroup(of: Void.self) { group in
                // Each loop prefers its actor's thread, so that it is woken there, not on the pool.
                group.addTask(preferring: identity.executor) { await identity.run(output: toSessionsInput) }
                group.addTask(preferring: sessions.executor) { await sessions.run(input: toSessions, output: toJournalInput) }
                group.addTask(preferring: journal.executor) { await journal.run(input: toJournal) }
            }
        }
    }

    /// Stops the intake, lets every stage finish what it holds, and stops the stage threads.
    func shutDown() async {
        intake.shutDown()
        await task.value
        stagesExecutor.stop()
        journalExecutor.stop()
    }
}
