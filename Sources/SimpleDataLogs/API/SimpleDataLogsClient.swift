public import Foundation
import Dispatch

/// One SimpleDataLogs instance: its own key, its own outbox folder, its own pipeline.
///
/// Apps usually use the static façade ``SimpleDataLogs``, which forwards to one default client.
/// Servers and tests create clients of their own; several in one process never see each other's
/// events.
///
/// Every method is safe to call from any thread, task or actor. `track` never waits: it stamps
/// the event, appends it to an in-memory queue under a short lock and returns.
public final class SimpleDataLogsClient: Sendable {
    let intake: Intake
    let stageCounters = StageCounters()
    /// The subscribers of ``metricSnapshots(every:)``; finished by ``shutdown(timeLimit:)``.
    let metrics: MetricSnapshotHub
    let clock: any Clock<Duration>
    let wallClock: any WallClock
    let tuning: ClientTuning
    let faults: FaultInjection
    /// The offline switch, made with the client so that it can be set before `configure`.
    let sending = SendingSwitch()
    /// This run's crash record, once this client installs the recorder; renamed with a rotated key.
    let crashRecordPath = Locked<String?>(nil)
    private let logSink: any LogSink
    private let environment: [String: String]
    /// What kind of process this is: it decides whether `configure` attaches the app lifecycle
    /// and warns about a secret key (``ProcessKind``).
    let processKind: ProcessKind
    private let state: Locked<State>

    private struct State: Sendable {
        var pipeline: Pipeline?
        /// The key requests carry (after a rotation, the new one); `nil` while nothing is sent.
        var ingestKey: String?
        var logger: SDKLogger
        var isShutDown = false
    }

    /// Creates a client that holds events in memory until ``configure(_:)``.
    /// - Parameters:
    ///   - clock: Drives every timer, delay and timeout; tests pass a manual clock.
    ///   - wallClock: Stamps events; tests pass a settable clock.
    ///   - logSink: Receives the SDK's log lines; standard error by default.
    ///   - eventsHeldBeforeConfigure: How many events are held before ``configure(_:)``; past
    ///     it the oldest are dropped (counted in ``DeliveryCounters/droppedBeforeConfigure``).
    ///     1,000 by default; a value below 1 is replaced by the default, with a log line.
    public convenience init(
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: any WallClock = SystemWallClock(),
        logSink: any LogSink = SimpleDataLogsClient.defaultLogSink,
        eventsHeldBeforeConfigure: Int = 1_000
    ) {
        self.init(
            clock: clock, wallClock: wallClock, logSink: logSink,
            environment: ProcessInfo.processInfo.environment, processKind: .current,
            eventsHeldBeforeConfigure: eventsHeldBeforeConfigure
        )
    }

    /// Creates a client with package-level tuning (``ClientTuning``), the fault-injection seams
    /// (``FaultInjection``: an injected file system, a gate before the writer, a crash point), an
    /// explicit environment and the process's kind (tests pass an app's or an extension's).
    package init(
        clock: any Clock<Duration>,
        wallClock: any WallClock,
        logSink: any LogSink,
        tuning: ClientTuning = ClientTuning(),
        faults: FaultInjection = FaultInjection(),
        environment: [String: String],
        processKind: ProcessKind = .current,
        eventsHeldBeforeConfigure: Int = Intake.defaultPreConfigureLimit
    ) {
        self.processKind = processKind
        intake = Intake(preConfigureLimit: eventsHeldBeforeConfigure >= 1 ? eventsHeldBeforeConfigure : Intake.defaultPreConfigureLimit)
        metrics = MetricSnapshotHub(source: CounterSource(intake: intake, stages: stageCounters), clock: clock)
        self.clock = clock
        self.wallClock = wallClock
        self.logSink = logSink
        self.tuning = tuning
        self.faults = faults
        self.environment = environment
        let level = environment["SDL_LOG_LEVEL"].flatMap(LogLevel.init(name:)) ?? .warning
        let logger = SDKLogger(level: level, sink: logSink)
        state = Locked(State(logger: logger))
        if eventsHeldBeforeConfigure < 1 {
            logger.warning("eventsHeldBeforeConfigure = \(eventsHeldBeforeConfigure) is below its floor of 1; using the default, \(Intake.defaultPreConfigureLimit).")
        }
    }

    /// A client released without ``shutdown(timeLimit:)`` gives back what it holds: its queued
    /// events are journaled (the next launch sends them), and its outbox area, threads and
    /// connections are released, in the background. It sends nothing more: a send needs a time
    /// limit, and only ``shutdown(timeLimit:)`` says how long the caller can wait.
    deinit {
        let (pipeline, logger): (Pipeline?, SDKLogger) = state.withLock { ($0.isShutDown ? nil : $0.pipeline, $0.logger) }
        guard let pipeline else {
            // Never configured (or shut down already): the metric snapshots end with the client.
            metrics.stop()
            return
        }
        // The pipeline's shutdown stops the intake first thing.
        logger.warning("A configured client was released without shutdown(): its queued events are kept on disk for the next launch, and its threads and files are released. Call shutdown() to send them now.")
        let finished = faults.releasedWithoutShutdown
        let metrics = metrics
        // No caller waits and no time was chosen: queued events pass the steps however long they
        // take, and nothing is sent.
        pipeline.shutDownInBackground {
            await metrics.finish()
            finished?()
        }
    }

    var logger: SDKLogger { state.withLock { $0.logger } }

    /// Where the SDK logs unless told otherwise: `os.Logger` on Apple platforms, standard error
    /// elsewhere.
    public static var defaultLogSink: any LogSink {
        #if canImport(os)
        return OSLogSink()
        #else
        return StandardErrorLogSink()
        #endif
    }

    // MARK: Configure

    /// Starts the client: opens the outbox and begins writing what was tracked so far.
    /// Only the first call counts; later calls are ignored with a log line.
    /// - Parameter configuration: The key, the endpoint and the options.
    public func configure(_ configuration: Configuration) {
        // A key read from a file or a secret store often ends in a newline: the edge would refuse
        // it (401) and the key would look wrong when only its whitespace is. Used trimmed, with a
        // warning below.
        var configuration = configuration
        let untrimmedKey = configuration.ingestKey
        configuration.ingestKey = IngestKey.trimmed(untrimmedKey)
        // A call that will be ignored makes nothing: a `URLSession` made and dropped keeps a
        // descriptor on Linux even after it is invalidated (measured: one per ignored call).
        let ignored: ConfigureOutcome? = state.withLock { state in
            state.isShutDown ? .afterShutdown : state.pipeline != nil ? .again : nil
        }
        if let ignored {
            reportIgnoredConfigure(ignored)
            return
        }
        let level = environment["SDL_LOG_LEVEL"].flatMap(LogLevel.init(name:)) ?? configuration.logLevel
        // In an Xcode preview: one line, no folder, no uploader (XcodePreviewRule).
        let inPreview = XcodePreviewRule.applies(to: environment)
        let logger = SDKLogger(level: inPreview ? .off : level, sink: logSink)
        let directory = inPreview ? nil : StorageLocation.resolve(
            configured: configuration.storageDirectory?.path, appID: configuration.appID, environment: environment
        )
        let uploader = uploaderSettings(for: configuration)
        let (limits, limitProblems) = configuration.limits.validated()
        // Made before the pipeline starts, so the outbox finds it installed when it replays what
        // ended runs left in front of it.
        let intakeLog: IntakeLogFile? = if let directory, tuning.intakeLog ?? configuration.keepsIntakeLog {
            makeIntakeLog(
                in: directory, owner: uploader.settings.owner,
                slotCount: OutboxActor.intakeLogSlots(backlogEvents: limits.backlogEvents), logger: logger
            )
        } else {
            nil
        }
        let outcome: ConfigureOutcome = state.withLock { state in
            guard !state.isShutDown else { return .afterShutdown }
            guard state.pipeline == nil else { return .again }
            state.logger = logger
            state.ingestKey = uploader.settings.builder?.ingestKey
            state.pipeline = Pipeline(
                intake: intake, counters: stageCounters, logger: logger, directory: directory,
                clock: clock, wallClock: wallClock, policy: SealPolicy(maxEvents: configuration.batchSize),
                caps: limits.outboxCaps, uploader: uploader.settings,
                autocapture: AutocaptureSettings(
                    capture: configuration.autocapture, sessionMode: configuration.sessionMode,
                    activity: configuration.activity, crashReasonRedaction: configuration.crashReasonRedaction
                ),
                middleware: configuration.middleware, usesInstallID: configuration.usesInstallID,
                automaticContext: configuration.automaticContext,
                intakeLog: intakeLog, crashRecordPath: crashRecordPath,
                receipts: receiptSettings(for: configuration),
                tuning: inPreview ? XcodePreviewRule.tuning(from: tuning) : tuning, faults: faults
            )
            return .started
        }
        switch outcome {
        case .again, .afterShutdown:
            // Lost a race with another configure or a shutdown: the session and the log made here
            // are not used.
            uploader.settings.ownedTransport?.invalidate()
            if let intakeLog { _ = unlink(intakeLog.path) }
            reportIgnoredConfigure(outcome)
        case .started:
            if let trimmed = IngestKey.trimmedWhitespace(untrimmedKey) {
                logger.warning("The ingest key \(IngestKey.redacted(configuration.ingestKey)) had \(trimmed) around it; the SDK uses the key without it. Trim keys read from a file or the environment.")
            }
            checkKey(configuration.ingestKey, logger: logger)
            for problem in limitProblems { logger.warning(problem) }
            intake.setBacklog(events: limits.backlogEvents, bytes: limits.backlogBytes)
            if let refusal = uploader.refusal { logger.error(refusal) }
            if directory == nil {
                logger.error("No storage folder: set SDL_STORAGE_DIR or HOME, or pass storageDirectory. Events are kept in memory only.")
            }
            if let directory {
                captureCrashes(
                    in: directory, configuration: configuration, owner: uploader.settings.owner,
                    formerOwners: uploader.settings.formerOwners, logger: logger
                )
            }
            if configuration.autocapture.contains(.appLaunches) {
                // Journaled in intake order; the outbox fills in `is_first_launch` for its folder.
                record("app_launched", properties: [:], at: nil, eventID: nil, deviceID: nil, origin: .autocaptured)
            }
            intake.markConfigured()
            logger.info(Self.configuredLine(configuration, eventsURL: uploader.settings.builder?.eventsURL, directory: directory, limits: limits))
            if inPreview { SDKLogger(level: level, sink: logSink).info(XcodePreviewRule.line(ingestKey: configuration.ingestKey)) }
            ClientRegistry.register(self)
            attachAppLifecycle(logger: logger)
        }
    }

    private enum ConfigureOutcome { case started, again, afterShutdown }

    /// ``rotateIngestKey(to:)``'s step under the client's lock: the verdict, and on `.rotate`
    /// the key swapped and the rotation queued, under the lock, so that two rotations reach the
    /// outbox in the order they changed the key.
    func swapIngestKey(for newKey: String) -> (KeyRotation.Verdict, previous: String?, SDKLogger) {
        state.withLock { state in
            let previous = state.ingestKey
            let verdict = state.isShutDown || state.pipeline == nil ? .cannotSend : KeyRotation.verdict(newKey: newKey, currentKey: previous)
            if case .rotate(let key) = verdict {
                state.ingestKey = key
                intake.enqueue(.rotateKey(KeyRotation(key: key)))
            }
            return (verdict, previous, state.logger)
        }
    }

    /// The milestone line of a started client: where events go (the key redacted), where they
    /// wait, and how they are cut and sent.
    /// A transport of the app's own decides where requests go (the OTLP one sends them to a
    /// collector's `/v1/logs`): the line names it rather than the URL the uploader builds.
    static func configuredLine(_ configuration: Configuration, eventsURL: URL?, directory: String?, limits: Limits) -> String {
        let sending = switch (eventsURL, configuration.transport) {
        case (nil, _): "not sending (see the error above)"
        case (let url?, nil): "sending to \(url.absoluteString)"
        case (let url?, let transport?): "sending through \(type(of: transport)) (for \(url.absoluteString); the transport decides where)"
        }
        return "Configured: \(sending) with key \(IngestKey.redacted(configuration.ingestKey)); outbox in \(directory ?? "memory only"); "
            + "batches of \(configuration.batchSize), \(configuration.maxConcurrentRequests) request(s) at once, "
            + "up to \(limits.outboxEvents) events on disk."
    }

    private func reportIgnoredConfigure(_ outcome: ConfigureOutcome) {
        switch outcome {
        case .again: logger.warning("configure was called again; the SDK keeps its first configuration. Configure once, at launch.")
        case .afterShutdown: logger.warning("configure was called after shutdown; ignored.")
        case .started: break
        }
    }

    /// Starts the client with the product's defaults for everything not given.
    /// - Parameters:
    ///   - ingestKey: `sdl_pub_…` in apps, `sdl_sec_…` on servers.
    ///   - endpoint: Where events go; `https://edge.simpledatalogs.com` by default.
    ///   - autocapture: What is sent without a `track` call; none by default.
    ///   - sessionMode: When sessions end.
    ///   - crashReasonRedaction: How much of a crash reason is sent.
    ///   - activity: Whether events carry `app_state` and `engaged_ms`.
    ///   - logLevel: The lowest level logged.
    ///   - storageDirectory: The outbox folder, or `nil` for the default.
    ///   - usesInstallID: Whether events for which the app sets no device id carry an install id
    ///     the SDK keeps; off by default. See ``Configuration/usesInstallID``.
    public func configure(
        ingestKey: String,
        endpoint: URL = Configuration.defaultEndpoint,
        autocapture: Autocapture = [],
        sessionMode: SessionMode = .activation,
        crashReasonRedaction: CrashReasonRedaction = .none,
        activity: ActivityTracking = .on,
        logLevel: LogLevel = .warning,
        storageDirectory: URL? = nil,
        usesInstallID: Bool = false
    ) {
        var configuration = Configuration(
            ingestKey: ingestKey, endpoint: endpoint, autocapture: autocapture, sessionMode: sessionMode,
            crashReasonRedaction: crashReasonRedaction, activity: activity, logLevel: logLevel,
            storageDirectory: storageDirectory
        )
        configuration.usesInstallID = usesInstallID
        configure(configuration)
    }

    private func checkKey(_ key: String, logger: SDKLogger) {
        let shown = IngestKey.redacted(key)
        switch IngestKey.kind(of: key) {
        case .publishable:
            break
        case .secret:
            // Only in an app (ProcessKind), whatever the platform: a server or a tool on a Mac
            // imports AppKit too.
            if processKind.warnsAboutSecretKey {
                logger.warning("A secret key (\(shown)) is configured in \(processKind). Use a public sdl_pub_ key in apps; secret keys are for servers.")
            }
        case nil:
            logger.error("The ingest key \(shown) is neither sdl_pub_ nor sdl_sec_; events are kept on disk and nothing is sent. Configure a key from your SimpleDataLogs project.")
        }
    }

    // MARK: Activity

    /// Reports a change in whether someone is using the app, for `app_state`, `engaged_ms` and
    /// `.activation` sessions. The Apple adapters call it from the app's lifecycle; on Linux
    /// a desktop app calls it itself (a server need not: it reports `background`).
    /// - Parameter activity: What changed, now.
    public func reportActivity(_ activity: ActivityEvent) {
        if case .dropped(firstInEpisode: true) = intake.enqueueActivity(activity, at: wallClock.nowMilliseconds) {
            logger.warning("More than \(Intake.maxQueuedActivities) activity reports are waiting to be processed; later ones are dropped until the queue drains. Report foreground and background on changes, not in a loop.")
        }
    }

    // MARK: Identity and opt-out

    /// Sets, or clears with `nil`, the `device_id` of every later event.
    ///
    /// May be called before ``configure(_:)``; it applies in order with `track` calls.
    /// - Parameter deviceID: An anonymous id of 1 to 200 UTF-8 bytes, or `nil` for none.
    public func setDeviceID(_ deviceID: String?) {
        intake.enqueue(.setDeviceID(deviceID))
    }

    /// Replaces the properties merged into every later event; the event's own properties win.
    /// - Parameter properties: The new defaults; `[:]` removes them all.
    public func setDefaultProperties(_ properties: [String: PropertyValue]) {
        intake.enqueue(.setDefaultProperties(properties))
    }

    /// The opt-out. `false` ignores new events at once and deletes every unsent event; `true`
    /// collects again. Not persisted: pass the app's setting on every launch, before `configure`.
    /// - Parameter enabled: Whether to collect.
    public func setEnabled(_ enabled: Bool) {
        intake.enqueue(.setEnabled(enabled))
    }

    // MARK: Reading state

    /// What happened to every event so far. See ``DeliveryCounters`` for the conservation law.
    public var counters: DeliveryCounters {
        CounterSource(intake: intake, stages: stageCounters).counters
    }

    /// How far the journal has come: the events that would survive `kill -9`. For the package's
    /// own tools and tests (`sdl send`); apps read ``counters``.
    package var journalWatermark: JournalWatermark {
        state.withLock { $0.pipeline }?.outbox.watermark ?? JournalWatermark()
    }

    var pipeline: Pipeline? { state.withLock { $0.pipeline } }

    /// Blocks the calling thread until `count` events are in the journal or `timeout` passes.
    /// For tests and crash-test children on threads of their own; never call it from a task.
    @available(*, noasync, message: "Blocks the calling thread; await flush() instead.")
    package func blockUntilJournaled(atLeast count: Int, timeout: Duration) -> Bool {
        guard let outbox = pipeline?.outbox else { return false }
        return outbox.blockUntilWatermark(atLeast: count, timeout: .after(timeout))
    }

    /// Returns once the intake stops holding calls for the log: the outbox has queued the ended
    /// runs' replay in front of them (or found it has none). For tests; every call that returns
    /// after `configure` is in the log either way (DESIGN.md, "The intake log").
    package func waitUntilIntakeLogSettled() async {
        await intake.waitUntilLogSettled()
    }

    /// Whether `track()` appends to an intake log now.
    package var hasIntakeLog: Bool { intake.hasLog }

    /// Calls taken while the intake log was full: the only ones a kill could cost once the log is
    /// open (the benchmark's loss window with the log).
    package var unloggedIntakeCalls: Int { intake.unloggedCalls }

    /// Events replayed from earlier runs' intake logs (in `counters.recovered`, journaled in front
    /// of this run's own): the reliability child subtracts them from the watermark.
    package var replayedFromIntakeLog: Int { intake.replayedEvents }

    /// Whether the intake still holds what it takes (in the log, when there is one) until the
    /// outbox has queued the ended runs' replay in front; for callers that cannot await
    /// ``waitUntilIntakeLogSettled()``.
    package var isOpeningIntakeLog: Bool { intake.isAwaitingLog }

    /// Marks the client shut down and returns its pipeline, if it was configured.
    func markShutDown() -> Pipeline? {
        ClientRegistry.unregister(self)
        return state.withLock { state in
            state.isShutDown = true
            return state.pipeline
        }
    }

    var isShutDown: Bool { state.withLock { $0.isShutDown } }
}
