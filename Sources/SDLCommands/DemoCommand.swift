/// `sdl demo`: parses its (few) arguments and runs ``Demo``.
enum DemoCommand {
    static let help = """
        Usage: sdl demo [--burst N]

        Runs the SDK end to end on this machine alone, in a few seconds: starts a local ingest on a
        free 127.0.0.1 port in this process, configures a client against it in a temporary folder,
        tracks an app's first minute (every property type, a back-dated event), a burst of
        thousands, and an outage (the ingest answers 503; the events wait on disk, then arrive),
        then shows the delivery counters. The temporary folder is removed at the end.

        Options:
          --burst N   events in the burst (default 3000)
          --help      this text

        Exit status: 0 when every event arrived exactly once; 1 otherwise; 64 usage error.
        """

    static func run(_ arguments: [String], console: any Console, environment: [String: String]) async -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, valued: ["--burst"], flags: [], command: "sdl demo")
        } catch {
            return error.report(as: "sdl demo", to: console)
        }
        if parsed.wantsHelp {
            console.out(help)
            return ExitCode.success
        }
        guard parsed.positionals.isEmpty else {
            return UsageError("unexpected argument \(parsed.positionals[0]).", hint: "Type `sdl demo` (see `sdl demo --help`).").report(as: "sdl demo", to: console)
        }
        var options = DemoOptions()
        options.logLevelName = environment["SDL_LOG_LEVEL"]
        if let text = parsed.value("--burst") {
            guard let burst = Int(text), (1...100_000).contains(burst) else {
                return UsageError("--burst must be a number from 1 to 100000, not \(text).", hint: "Type `sdl demo --burst 3000`.").report(as: "sdl demo", to: console)
            }
            options.burstSize = burst
        }
        let result = await Demo.run(options: options, console: console)
        return result.succeeded ? ExitCode.success : ExitCode.failure
    }
}
