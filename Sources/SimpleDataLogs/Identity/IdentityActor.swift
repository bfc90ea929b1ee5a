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
    private let middleware: MiddlewareChain
    /// Raised by shutdown when its time limit runs out before the steps are done.
    private let cutoff: StepsCutoff
    /// Where the install id is kept, when the app opted in.
    private let installIDs: InstallIDStore?
    /// The automatic context the app asked for, and where its facts come from.
    private let context: (options: AutomaticContext, source: ContextSource)?
    private let logger: SDKLogger

    init(
        intake: Intake, counters: StageCounters, problemLog: ProblemLog, middleware: MiddlewareChain = MiddlewareChain(steps: []),
        cutoff: StepsCutoff = StepsCutoff(), installIDs: InstallIDStore? = nil,
        context: (options: AutomaticContext, source: ContextSource)? = nil, logger: SDKLogger, executor: ThreadExecutor
    ) {
        self.context = context
        self.cutoff = cutoff
        self.intake = intake
        self.counters = counters
        self.problemLog = problemLog
        self.middleware = middleware
        self.installIDs = installIDs
        self.logger = logger
        self.executor = executor
    }

    /// Drains the intake at every wake-up until the intake shuts down, then finishes `output`.
    /// The install id and the automatic context are read first, on this thread (the SDK's own:
    /// both may read files), before any event needs them.
    func run(output: HandOffQueue<[PipelineItem]>) async {
        state.installID = installIDs?.loadOrCreate(logger: logger)
        if let context, !context.options.isEmpty {
            state.context = context.source.read().properties(for: context.options)
        }
        for await _ in intake.wakeUps {
            await drainOnce(into: output)
        }
        // Work enqueued between the last wake-up and the shutdown still goes through, once the
        // intake no longer holds it back for the log.
        await intake.waitUntilLogSettled()
        await drainOnce(into: output)
        output.finish()
    }

    /// The buffer the intake's queue is swapped into, kept with its capacity between drains.
    private var drained: [IntakeItem] = []

    /// With middleware steps, the most items one chunk holds: a step's time is the app's (a
    /// lookup may take milliseconds), and a chunk goes on only once all of it is done, so a long
    /// drain (the events held while the log opened at launch, a burst) in one chunk kept every
    /// finished event from the journal until the last step, and a shutdown cut off in between
    /// dropped them all (SlowMiddlewareTests). Without steps a drain is one chunk: it is fast.
    static let chunkWithSteps = 8

    /// Processes what the intake holds and passes it on. With steps and more than one chunk,
    /// the stage yields its thread after each chunk: the sessions stage shares that thread
    /// (`sdl.stages`), and a chunk pushed to it is journaled only once the sessions stage runs,
    /// so without the yield every chunk of a drain still waited for the drain's last step.
    private func drainOnce(into output: HandOffQueue<[PipelineItem]>) async {
        let logged = intake.drain(into: &drained)
        if middleware.isEmpty || drained.count <= Self.chunkWithSteps {
            let chunk = process(drained, loggedThrough: logged)
            if !chunk.isEmpty { output.push(chunk) }
        } else {
            var start = drained.startIndex
            while start < drained.endIndex {
                let end = min(start + Self.chunkWithSteps, drained.endIndex)
                // The log's position goes with the last part: it covers the whole drain.
                let chunk = process(Array(drained[start..<end]), loggedThrough: end == drained.endIndex ? logged : nil)
                if !chunk.isEmpty { output.push(chunk) }
                start = end
                if start < drained.endIndex { await Task.yield() }
            }
        }
        drained.removeAll(keepingCapacity: true)
    }

    /// Applies one drained run of intake items, in order.
    /// - Parameter loggedThrough: The intake log's newest record among `items`: passed on at the
    ///   chunk's end (``PipelineItem/logPosition(_:)``), so the journal can release the log once
    ///   it holds what came before. Not when shutdown's cutoff left events behind: those stay in
    ///   the log, for the next launch.
    func process(_ items: [IntakeItem], loggedThrough: UInt64? = nil) -> [PipelineItem] {
        var output: [PipelineItem] = []
        output.reserveCapacity(items.count)
        var problems: [EventValidator.Problem] = []
        var tally = ChunkTally()
        var clearedBySteps = false
        var leftBehind = false
        // Taken once a chunk, and held while it is read: a close cannot unmap it meanwhile.
        var log: IntakeLogFile.Mapping?
        // The newest record read back: every record before it in the log came before it in the
        // queue, so a barrier after it may release the log through it (a `flush()` then leaves
        // the log released, not only at the chunk's end).
        var readThrough: UInt64?
        for item in items {
            var item = item
            if case .logged(let record) = item {
                // Read back (and sealed) here, off the caller's path (decision 0045).
                if log == nil { log = intake.logMapping }
                guard let log else {
                    // The log closed under a stage that outlived the outbox (shutdown): the
                    // record stays in the file for the next launch, and shutdown counts the
                    // event as dropped at shutdown, as one its time limit cut off.
                    leftBehind = true
                    continue
                }
                guard let event = log.takeEvent(record) else {
                    tally.invalid += 1
                    tally.releasedCost += LoggedRecord.memoryCost(payloadCount: record.payloadCount)
                    logger.error("An event in the intake log (record \(record.sequence)) could not be read back; it is dropped and counted as invalid. The file was changed behind the SDK's back.")
                    continue
                }
                readThrough = record.sequence
                item = .event(event)
            }
            switch item {
            case .logged:
                continue
            case .event(var event):
                // Shutdown's time limit ran out: no more steps. The event is left to shutdown,
                // which counts it as dropped at shutdown (`StepsCutoff`).
                if !middleware.isEmpty, cutoff.isCut {
                    leftBehind = true
                    continue
                }
                if let scoped = event.scopedProperties {
                    // Under the event's own (which win, past 200 keys too), before validation
                    // checks them all.
                    EventValidator.merge(scoped, under: &event.properties, problems: &problems)
                    event.scopedProperties = nil
                }
                guard EventValidator.validate(&event, problems: &problems) else {
                    tally.invalid += 1
                    tally.releasedCost += event.memoryCost
                    continue
                }
                if state.apply(to: &event, problems: &problems) {
                    tally.clearedDeviceIDs += 1
                    problemLog.reportClearedDeviceID(from: .call)
                }
                if !middleware.isEmpty {
                    switch middleware.process(&event, problems: &problems) {
                    case .kept(let cleared):
                        if cleared {
                            tally.clearedDeviceIDs += 1
                            clearedBySteps = true
                        }
                    case .dropped(let step):
                        tally.droppedBySteps[step, default: 0] += 1
                        tally.releasedCost += event.memoryCost
                        continue
                    case .invalid:
                        tally.invalid += 1
                        tally.releasedCost += event.memoryCost
                        continue
                    }
                }
                output.append(.event(event))
            case .setDeviceID(let id):
                if state.setDeviceID(id) { problemLog.reportInvalidDeviceID() }
            case .reset(let newDeviceID):
                let previous = state.inheritedDeviceID
                if state.reset(to: newDeviceID) { problemLog.reportInvalidDeviceID() }
                if let installIDs { state.installID = installIDs.replace(logger: logger) }
                output.append(.identityReset(previousDeviceID: previous, nextDeviceID: state.inheritedDeviceID))
            case .setDefaultProperties(let properties):
                state.setDefaultProperties(properties, problems: &problems)
            case .setEnabled(let enabled):
                if !enabled { output.append(.optOut) }
            case .barrier(let barrier):
                if let readThrough, !leftBehind { output.append(.logPosition(readThrough)) }
                output.append(.barrier(barrier))
            case .rotateKey(let rotation):
                output.append(.rotateKey(rotation))
            case .crashRecordHandedOver(let record):
                output.append(.crashRecordHandedOver(record))
            case .activity(let activity, let time):
                output.append(.activity(activity, at: time))
            case .restoreIdentity(let deviceID, let defaults):
                state.restore(deviceID: deviceID, defaults: defaults)
            case .replayBegins:
                state.beginReplay()
            case .replayEnds:
                state.endReplay()
            }
        }
        if let loggedThrough, !leftBehind { output.append(.logPosition(loggedThrough)) }
        if clearedBySteps { problemLog.reportClearedDeviceID(from: .middleware) }
        tally.commit(intake: intake, counters: counters, problemLog: problemLog)
        problemLog.report(problems)
        return output
    }
}
