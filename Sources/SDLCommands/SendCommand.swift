import Foundation
import SimpleDataLogs

/// `sdl send EVENT`: tracks one event through the real SDK (journal, outbox, uploader) and
/// waits, at most `--timeout`, for the ingest to accept it and whatever earlier runs left.
enum SendCommand {
    static let help = """
        Usage: sdl send EVENT [--prop key=value]… [--endpoint URL] [--key KEY] [--storage DIR] [--timeout SECONDS] [--verbose]

        Tracks one event from a shell script or a CI job through the SDK and waits for delivery.
        Events earlier runs left in the same storage folder for the same key and endpoint are sent
        too; events left for another key or endpoint are left alone, and named.

        Options:
          --prop key=value   a property; repeat for more. true/false are sent as a bool, an integer
                             as an integer, a number as a number, anything else as a string
          --endpoint URL     the ingest (default https://edge.simpledatalogs.com; a local one:
                             http://localhost:4001, see `sdl ingest`)
          --key KEY          the ingest key, sdl_sec_… or sdl_pub_… (or set SDL_INGEST_KEY)
          --storage DIR      the outbox folder (default: SDL_STORAGE_DIR, else
                             $XDG_DATA_HOME or ~/.local/share, then /sdl/SimpleDataLogs)
          --timeout SECONDS  the longest the whole command takes, recovery of the storage
                             folder included (default 10; half a second more to finish)
          --verbose          print the SDK's own story of this send on standard error: what it
                             recovered, each batch sealed, sent and answered (status, round
                             trip), each backoff and why (the same as SDL_LOG_LEVEL=debug)
          --help             this text

        Exit status:
          0   delivered: the ingest acknowledged it (and nothing else of this key and endpoint is
              waiting in the storage folder)
          1   not deliverable: the ingest rejected the event or set its batch aside, or
              acknowledged nothing while events left the outbox undelivered
          64  usage error: the message says what to type instead
          69  not written: the timeout passed while the SDK was still recovering a large
              storage folder, before the event reached the disk; send it again with a longer
              --timeout (nothing earlier runs left is lost)
          75  not delivered yet but safe on disk (ingest down, a 401, a backoff longer than the
              timeout, a recovery longer than the timeout): the next `sdl send` with the same
              storage folder sends it
        """

    static func run(_ arguments: [String], console: any Console, environment: [String: String]) async -> Int32 {
        let options: SendOptions
        do {
            let parsed = try ParsedArguments(arguments, valued: SendOptions.valued, flags: SendOptions.flags, command: "sdl send")
            if parsed.wantsHelp {
                console.out(help)
                return ExitCode.success
            }
            options = try SendOptions(parsed, environment: environment)
        } catch {
            return error.report(as: "sdl send", to: console)
        }
        return await send(options, console: console, environment: environment)
    }

    /// How much past `--timeout` the command may run to finish its last steps (shutdown, the
    /// final lines) before it stops waiting for them.
    static let grace: Duration = .milliseconds(500)

    /// The whole command within `--timeout` (and ``grace``), launch included: a storage folder
    /// with a large backlog (a crash-looping server's) keeps the SDK recovering, and the new
    /// event waits behind that recovery. When the limit passes first, the command says what is
    /// true: the event was never written (exit 69), and leaves. Once the event is written the
    /// command's own limits bound the rest, as they always did.
    static func send(_ options: SendOptions, console: any Console, environment: [String: String]) async -> Int32 {
        let clock = ContinuousClock()
        let start = clock.now
        // --verbose is SDL_LOG_LEVEL=debug for this client, whatever the environment says.
        var environment = environment
        if options.verbose { environment["SDL_LOG_LEVEL"] = LogLevel.debug.name }
        let client = SimpleDataLogsClient(
            clock: clock, wallClock: SystemWallClock(), logSink: ConsoleLogSink(console: console),
            environment: environment
        )
        let work = Task { [environment] in await deliver(with: client, options: options, console: console, environment: environment) }
        if let status = await FirstOf.value(of: work, within: options.timeout + grace) { return status }
        // Written: recovery is over (the event waits behind it, on the same actor), and the rest
        // of the command is bounded by its own limits (the flush's, shutdown's time limit); a
        // loaded machine may take a moment past them, and cutting in would misreport a delivery.
        // The journal's watermark counts what this client wrote; the new event is its only one.
        if options.event != nil, client.journalWatermark.eventsWritten > 0 { return await work.value }
        let elapsed = LogFormat.duration(start.duration(to: clock.now))
        let root = options.storage?.path ?? OutboxInspector.defaultRoot(appID: "sdl", environment: environment)
        let folder = root.map(TerminalText.escaped) ?? "the outbox folder"
        guard options.event != nil else {
            // A drain writes nothing: past the limit it is still recovering, and keeps it all.
            console.err("sdl outbox drain: not done when the timeout passed (\(elapsed)): the SDK was still recovering what earlier runs left in \(folder).")
            console.err("  Nothing is lost; run it again with a longer --timeout.")
            return ExitCode.tryAgainLater
        }
        console.err("sdl send: the event was NOT written when the timeout passed (\(elapsed)): the SDK was still recovering what earlier runs left in \(folder).")
        console.err("  Nothing earlier runs left is lost (the next run goes on with it); send the event again with a longer --timeout.")
        return ExitCode.notWritten
    }

    private static func deliver(
        with client: SimpleDataLogsClient, options: SendOptions, console: any Console, environment: [String: String]
    ) async -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now + options.timeout
        var configuration = SimpleDataLogsClient.Configuration(
            ingestKey: options.key, endpoint: options.endpoint, storageDirectory: options.storage, appID: "sdl",
            requestTimeout: min(options.timeout, .seconds(30))
        )
        configuration.previousIngestKeys = options.previousKeys
        client.configure(configuration)
        let reports = client.deliveryReports()
        async let outcome = SendOutcome.collect(reports)
        if let event = options.event { client.track(event, properties: options.properties) }
        let command = options.event == nil ? "sdl outbox drain" : "sdl send"
        // One try within the timeout; `flush` returns at once when its task is cancelled, and
        // the event is on disk either way.
        await withTimeLimit(options.timeout) { _ = await client.flush() }
        // Shutdown tries once more in what time is left (a flush ignores a short backoff), then
        // keeps the rest on disk.
        await client.shutdown(timeLimit: max(.zero, deadline - clock.now))
        let counters = client.counters
        let said = await outcome
        let root = options.storage?.path ?? OutboxInspector.defaultRoot(appID: "sdl", environment: environment)
        let folder = root.map(TerminalText.escaped) ?? "the outbox folder"
        let earlier = counters.recovered > 0 ? " and \(counters.recovered) events earlier runs left" : ""
        // Events another key or endpoint left in the folder are not this send's: left alone, and said.
        if let root { noteLeftForOthers(in: root, options: options, command: command, console: console) }

        if counters.pending > 0 {
            let why = said.lastProblem ?? "no answer from \(options.endpoint.absoluteString) within \(options.timeout)"
            console.err("\(command): not delivered yet (\(why)).")
            console.err("  \(counters.pending) events are safe on disk in \(folder); the next `\(command)` with that storage folder sends them.")
            return ExitCode.tryAgainLater
        }
        if counters.invalid > 0 || counters.droppedTooLarge > 0 {
            console.err("\(command): the SDK dropped the event as invalid or too large; see the [SDK] lines above.")
            return ExitCode.failure
        }
        if !said.rejected.isEmpty {
            console.err("\(command): the ingest rejected \(said.rejected.count) events: \(said.rejected.joined(separator: "; ")).")
            return ExitCode.failure
        }
        if !said.setAside.isEmpty {
            console.err("\(command): the ingest refused a batch (\(said.setAside.joined(separator: "; "))); it is set aside in \(folder).")
            console.err("  After fixing the cause, `sdl outbox requeue \(folder)` queues it again.")
            return ExitCode.failure
        }
        // Success comes from what the ingest acknowledged, never from an empty queue: an event
        // that left the queue some other way (the caps, a vanished file) was not delivered.
        let dropped = counters.evictedByCaps + counters.lostFromDisk + counters.skippedBacklog + counters.deletedByOptOut
        if options.event == nil, counters.recovered == 0, counters.delivered == 0 {
            console.out("sdl outbox drain: nothing was waiting in \(folder) for this key and endpoint.")
            return ExitCode.success
        }
        guard counters.delivered > 0 else {
            console.err("\(command): the ingest acknowledged nothing; \(dropped) events left the outbox undelivered (see the [SDK] lines above).")
            return ExitCode.failure
        }
        if dropped > 0 {
            console.err("\(command): note: \(dropped) events in \(folder) were dropped without delivery (the outbox's caps, or files deleted behind it); see the [SDK] lines above.")
        }
        if options.event == nil {
            console.out("sdl outbox drain: delivered the \(counters.delivered) events earlier runs left in \(folder) to \(options.endpoint.absoluteString).")
        } else {
            console.out("sdl send: delivered \(options.event ?? "")\(earlier) to \(options.endpoint.absoluteString).")
        }
        return ExitCode.success
    }

    /// One line per area whose events wait for another key or endpoint (its `owner` file):
    /// `sdl send` never sends them, and says where they are and who does.
    private static func noteLeftForOthers(in root: String, options: SendOptions, command: String, console: any Console) {
        guard case .success(let endpoint) = Endpoint.resolve(options.endpoint, allowsInsecureHTTP: false) else { return }
        let mine = AreaOwner(ingestKey: IngestKey.trimmed(options.key), eventsURL: endpoint.eventsURL)
        for area in OutboxInspector.inspect(root: root).areas {
            let events = area.pendingEvents + area.setAside.reduce(0) { $0 + $1.events }
            guard events > 0 else { continue }
            let whose: String
            switch area.owner {
            case .recorded(let owner) where !owner.matches(mine):
                whose = "key \(TerminalText.escaped(owner.keyText)) at \(TerminalText.escaped(owner.endpoint))"
            case .unreadable(let why):
                whose = "an owner that cannot be read (\(TerminalText.escaped(why)))"
            case .recorded, .none:
                continue
            }
            console.err("\(command): left \(events) events in area \(TerminalText.escaped(area.name)) alone: they are for \(whose), not this key and endpoint; a client (or `sdl send`) configured with those sends them.")
        }
    }

    /// Runs `work` until it ends or `limit` passes, whichever is first; `work` is cancelled when
    /// the limit wins.
    private static func withTimeLimit(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async {
        _ = await Deadline.run(limit, on: ContinuousClock(), work)
    }
}
