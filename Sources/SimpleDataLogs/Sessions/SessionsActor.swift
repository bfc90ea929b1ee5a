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

    /// - Parameters:
    ///   - sessionMode: The session rule, or `nil` when `.sessions` autocapture is off.
    ///   - tracksActivity: Whether events get `app_state` and `engaged_ms`.
    init(sessionMode: SessionMode?, tracksActivity: Bool, intake: Intake, executor: ThreadExecutor) {
        sessions = sessionMode.map { SessionRules(mode: $0) }
        activity = tracksActivity ? ActivityRules() : nil
        self.intake = intake
        self.executor = executor
    }

    /// Passes each chunk from `input` to the outbox's queue, in order, and finishes the queue
    /// after `input`.
    func run(input: AsyncStream<[PipelineItem]>, output: HandOffQueue<[PipelineItem]>) async {
        for await chunk in input {
            output.push(process(chunk))
        }
        output.finish()
    }

    /// Applies the session and activity rules to one chunk.
    func process(_ chunk: [PipelineItem]) -> [PipelineItem] {
        guard sessions != nil || activity != nil else {
            return chunk.filter {
                switch $0 {
                case .activity, .identityReset: false
                case .event, .optOut, .barrier, .sessionCheckpoint, .crashRecordHandedOver: true
                }
            }
        }
        var output: [PipelineItem] = []
        output.reserveCapacity(chunk.count + 2)
        var generated = 0
        let before = sessions?.openSessions
        for item in chunk {
            switch item {
            case .event(var event):
                if sessions != nil {
                    let emitted = sessions!.process(&event)
                    generated += emitted.count
                    output += emitted.map(PipelineItem.event)
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
                        output += emitted.map(PipelineItem.event)
                    }
                case .background:
                    sessions?.appWentAway(at: time)
                case .userInput:
                    break
                }
            case .identityReset(let previous, let next):
                if let emitted = sessions?.endSession(ofDevice: previous, becoming: next) {
                    generated += emitted.count
                    output += emitted.map(PipelineItem.event)
                }
            case .optOut, .barrier, .sessionCheckpoint, .crashRecordHandedOver:
                output.append(item)
            }
        }
        intake.admitGenerated(generated)
        if let after = sessions?.openSessions, after != before {
            output.append(.sessionCheckpoint(after))
        }
        return output
    }
}
