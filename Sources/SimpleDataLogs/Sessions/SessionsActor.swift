/// The sessions stage: adds `session_id`, `app_state` and `engaged_ms` to events, and sends
/// `session_start` and `session_end`, by the pure ``SessionRules`` and ``ActivityRules``.
///
/// Why an actor of its own: session state changes only in event order, from one loop, and the
/// platform's activity reports reach it through the same ordered intake as the events.
actor SessionsActor {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private var sessions: SessionRules?
    private var activity: ActivityRules?
    private let intake: Intake
    /// The app's steps, run over the session events this stage makes, as the identity stage
    /// runs them over every other event: a step that scrubs or drops must see every event.
    private let middleware: MiddlewareChain
    private let cutoff: StepsCutoff
    private let counters: StageCounters
    private let problemLog: ProblemLog

    /// - Parameters:
    ///   - sessionMode: The session rule, or `nil` when `.sessions` autocapture is off.
    ///   - tracksActivity: Whether events get `app_state` and `engaged_ms`.
    ///   - middleware: The steps the session events pass, as every event does.
    ///   - cutoff: Raised by shutdown when its time limit runs out before the steps are done.
    init(
        sessionMode: SessionMode?, tracksActivity: Bool, intake: Intake, middleware: MiddlewareChain = MiddlewareChain(steps: []),
        cutoff: StepsCutoff = StepsCutoff(), counters: StageCounters = StageCounters(), problemLog: ProblemLog,
        executor: ThreadExecutor
    ) {
        sessions = sessionMode.map { SessionRules(mode: $0) }
        activity = tracksActivity ? ActivityRules() : nil
        self.intake = intake
        self.middleware = middleware
        self.cutoff = cutoff
        self.counters = counters
        self.problemLog = problemLog
        self.executor = executor
    }

    /// Passes each chunk from `input` to the outbox's queue, in order, and finishes the queue
    /// after `input`. Each chunk goes on as soon as it is processed (a slow middleware step on
    /// the next one must not hold it back); pushes while the outbox works cost no wake-up.
    func run(input: HandOffQueue<[PipelineItem]>, output: HandOffQueue<OutboxInput>) async {
        for await chunks in input {
            for chunk in chunks { output.push(.chunk(process(chunk))) }
        }
        output.finish()
    }

    /// Applies the session and activity rules to one chunk.
    func process(_ chunk: [PipelineItem]) -> [PipelineItem] {
        guard sessions != nil || activity != nil else {
            return chunk.filter {
                switch $0 {
                case .activity, .identityReset: false
                case .event, .optOut, .barrier, .sessionCheckpoint, .crashRecordHandedOver, .logPosition, .rotateKey: true
                }
            }
        }
        var output: [PipelineItem] = []
        output.reserveCapacity(chunk.count + 2)
        var generated = 0
        var tally = ChunkTally()
        var problems: [EventValidator.Problem] = []
        let before = sessions?.openSessions
        for item in chunk {
            switch item {
            case .event(var event):
                if sessions != nil {
                    let emitted = sessions!.process(&event)
                    generated += emitted.count
                    passSteps(emitted, into: &output, tally: &tally, problems: &problems)
                }
                if activity != nil, event.origin != .backdated {
                    let stamp = activity!.stamp(at: event.timestamp)
                    if event.appState == nil { event.appState = stamp.state }
                    event.engagedMilliseconds = stamp.engagedMilliseconds
                }
                output.append(.event(event))
            case .activity(let change, let time):
                activity?.record(change, at: time)
                switch change {
                case .foreground:
                    if let emitted = sessions?.appBecameActive(at: time) {
                        generated += emitted.count
                        passSteps(emitted, into: &output, tally: &tally, problems: &problems)
                    }
                case .background:
                    sessions?.appWentAway(at: time)
                case .userInput:
                    break
                }
            case .identityReset(let previous, let next):
                if let emitted = sessions?.endSession(ofDevice: previous, becoming: next) {
                    generated += emitted.count
                    passSteps(emitted, into: &output, tally: &tally, problems: &problems)
                }
            case .optOut, .barrier, .sessionCheckpoint, .crashRecordHandedOver, .logPosition, .rotateKey:
                output.append(item)
            }
        }
        // Admitted before the steps' drops are released, so the law counts each one once.
        intake.admitGenerated(generated)
        tally.commit(intake: intake, counters: counters, problemLog: problemLog)
        problemLog.report(problems)
        if let after = sessions?.openSessions, after != before {
            output.append(.sessionCheckpoint(after))
        }
        return output
    }

    /// Hands the session events this stage made to the app's steps and appends what they keep.
    /// After shutdown's cutoff they are left unsent (shutdown counts them); a step's drop or an
    /// invalid result is counted as for any event.
    private func passSteps(
        _ emitted: [Event], into output: inout [PipelineItem], tally: inout ChunkTally, problems: inout [EventValidator.Problem]
    ) {
        guard !middleware.isEmpty else {
            output += emitted.map(PipelineItem.event)
            return
        }
        for var event in emitted where !cutoff.isCut {
            if middleware.pass(&event, tally: &tally, problems: &problems, problemLog: problemLog) { output.append(.event(event)) }
        }
    }
}
