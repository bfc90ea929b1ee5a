import SimpleDataLogs

/// The `sdl` tool's commands as functions: each takes its arguments and a console and returns
/// the exit status, so the executable is a one-line shell and tests call the same code.
package enum SDL {
    /// Runs one `sdl` command line.
    /// - Parameters:
    ///   - arguments: The words after `sdl` (`CommandLine.arguments.dropFirst()`).
    ///   - console: Where output and errors go.
    ///   - environment: The process environment (`SDL_INGEST_KEY`, `SDL_STORAGE_DIR`, …).
    /// - Returns: The exit status; see ``ExitCode``.
    package static func run(_ arguments: [String], console: any Console, environment: [String: String]) async -> Int32 {
        let rest = Array(arguments.dropFirst())
        switch arguments.first {
        case nil, "help", "--help", "-h":
            console.out(help)
            return arguments.isEmpty ? ExitCode.usage : ExitCode.success
        case "--version", "version":
            console.out("sdl \(SimpleDataLogsVersion.current)")
            return ExitCode.success
        case "demo":
            return await DemoCommand.run(rest, console: console, environment: environment)
        case "send":
            return await SendCommand.run(rest, console: console, environment: environment)
        case "outbox" where rest.first == "drain":
            return await DrainCommand.run(Array(rest.dropFirst()), console: console, environment: environment)
        case "outbox":
            return OutboxCommand.run(rest, console: console, environment: environment)
        case "ingest":
            return await IngestCommand.run(rest, console: console)
        case let other?:
            return UsageError(
                "unknown command \(other).", hint: "Commands: demo, send, ingest, outbox. Type `sdl --help`."
            ).report(as: "sdl", to: console)
        }
    }

    static let help = """
        sdl \(SimpleDataLogsVersion.current): the SimpleDataLogs command-line tool.

        Usage:
          sdl demo                      the SDK end to end against a local ingest, in seconds
          sdl send EVENT [--prop k=v]…  track one event from a script or CI job, and deliver it
          sdl ingest [--port 4001]      a local ingest server for development
          sdl outbox [DIR]              inspect an outbox folder without changing it
          sdl outbox requeue [DIR]      move set-aside batches back into the queue
          sdl outbox drain [DIR]        deliver what earlier runs left, tracking nothing new
          sdl --version                 print the version

        Type `sdl COMMAND --help` for a command's options.

        \(exitCodesHelp)
        """

    static let exitCodesHelp = """
        Exit status:
          0   done (sdl send: delivered)
          1   failed in a way retrying will not fix
          64  usage error: the message says what to type instead
          66  the folder named does not exist
          75  not done yet, nothing lost: try again later (sdl send: the event is on disk)
        """
}
