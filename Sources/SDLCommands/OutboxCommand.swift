import SimpleDataLogs

/// `sdl outbox [DIR]` and `sdl outbox requeue [DIR]`.
enum OutboxCommand {
    static let help = """
        Usage: sdl outbox [DIR] [--app-id NAME]
               sdl outbox requeue [DIR] [--app-id NAME]
               sdl outbox drain [DIR] [--key KEY] [--endpoint URL] [--timeout SECONDS]   (see `sdl outbox drain --help`)

        Shows what an outbox folder holds, without changing it: each area and whether its lock is
        held (and by which process), the journal and batch files with their events, oldest and
        newest event time, damaged records with their offsets, set-aside and quarantined files,
        and the intake logs' events not yet journaled.
        Files are opened read-only and no lock is taken; on Linux the lock state is read from
        /proc/locks.

        `requeue` moves set-aside batches back into batches/ (one rename each), so the next client
        sends them. It refuses while a running process holds the area.

        With no DIR: SDL_STORAGE_DIR when set, else $XDG_DATA_HOME (or ~/.local/share)
        /<app id>/SimpleDataLogs, the app id being --app-id (default: sdl).

        Options:
          --app-id NAME   the app whose default folder to use (an app's id is its executable name
                          unless it configured one)
          --help          this text

        Exit status: 0 done; 1 some files could not be moved; 64 usage error; 66 no outbox folder
        there; 75 requeue refused: a running process holds the area (stop it, then run again).
        """

    static func run(_ arguments: [String], console: any Console, environment: [String: String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, valued: ["--app-id"], flags: [], command: "sdl outbox")
        } catch {
            return error.report(as: "sdl outbox", to: console)
        }
        if parsed.wantsHelp {
            console.out(help)
            return ExitCode.success
        }
        var words = parsed.positionals
        let requeue = words.first == "requeue"
        if requeue { words.removeFirst() }
        let command = requeue ? "sdl outbox requeue" : "sdl outbox"
        guard words.count <= 1 else {
            return UsageError("one folder at a time; unexpected \(words[1]).", hint: "Type `\(command) DIR`.").report(as: command, to: console)
        }
        let root: String
        if let folder = words.first {
            root = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        } else if let found = OutboxInspector.defaultRoot(appID: parsed.value("--app-id") ?? "sdl", environment: environment) {
            root = found
        } else {
            return UsageError("no default outbox folder: HOME is not set.", hint: "Type `\(command) DIR`.").report(as: command, to: console)
        }
        return requeue ? runRequeue(root: root, console: console) : show(root: root, console: console)
    }

    private static func show(root: String, console: any Console) -> Int32 {
        let report = OutboxInspector.inspect(root: root)
        guard report.exists else {
            console.err("sdl outbox: no outbox at \(TerminalText.escaped(root)).")
            console.err("  Name the folder (`sdl outbox DIR`), or the app (`sdl outbox --app-id NAME`).")
            return ExitCode.noInput
        }
        OutboxReportText.lines(report).forEach(console.out)
        return ExitCode.success
    }

    private static func runRequeue(root: String, console: any Console) -> Int32 {
        switch OutboxInspector.requeueSetAside(root: root) {
        case .success(let outcome):
            outcome.moved.forEach { console.out("requeued \(TerminalText.escaped($0))") }
            outcome.failures.forEach { console.err("sdl outbox requeue: could not move \(TerminalText.escaped($0))") }
            console.out("sdl outbox requeue: \(outcome.moved.count) set-aside batches moved back into batches/; the next client to open \(TerminalText.escaped(root)) sends them.")
            return outcome.failures.isEmpty ? ExitCode.success : ExitCode.failure
        case .failure(.noOutbox(let path)):
            console.err("sdl outbox requeue: no outbox at \(TerminalText.escaped(path)).")
            console.err("  Name the folder: `sdl outbox requeue DIR`.")
            return ExitCode.noInput
        case .failure(.areaInUse(let area, let pid)):
            let who = pid.map { "pid \($0)" } ?? "a running process"
            console.err("sdl outbox requeue: area \(TerminalText.escaped(area)) is in use by \(who); it owns those files, so nothing was moved.")
            console.err("  Stop that process (it keeps set-aside batches on disk), then run `sdl outbox requeue \(root)` again.")
            return ExitCode.tryAgainLater
        case .failure(.cannotLock(let area, let reason)):
            console.err("sdl outbox requeue: cannot lock area \(TerminalText.escaped(area)): \(TerminalText.escaped(reason)); nothing was moved.")
            return ExitCode.failure
        }
    }
}
