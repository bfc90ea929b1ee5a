import Foundation
import SimpleDataLogs

/// `sdl outbox drain [DIR]`: delivers what earlier runs left in an outbox folder and tracks
/// nothing new, for the jobs and hooks of a fleet (a Kubernetes job over a dead pod's volume, a
/// pre-stop hook). The same client, checks and exit codes as `sdl send`, without its event.
enum DrainCommand {
    static let help = """
        Usage: sdl outbox drain [DIR] [--key KEY] [--previous-key KEY]… [--endpoint URL] [--timeout SECONDS] [--app-id NAME] [--verbose]

        Delivers what earlier runs left in an outbox folder (a pod that was killed, a job that
        ended with the ingest down) and tracks nothing new: for a Kubernetes job or a pre-stop
        hook. Only batches written for this key and endpoint are sent; those of another key or
        endpoint are left alone, and named. A folder a running process holds is left to it. The
        folder must exist: drain never makes one.

        With no DIR: SDL_STORAGE_DIR when set, else $XDG_DATA_HOME (or ~/.local/share)
        /<app id>/SimpleDataLogs, the app id being --app-id (default: sdl).

        Options:
          --key KEY          the ingest key the events were tracked for (or set SDL_INGEST_KEY)
          --previous-key KEY a key this project used before KEY (a rotation): what it left is
                             sent with KEY too; repeat for more
          --endpoint URL     the ingest they were tracked for (default https://edge.simpledatalogs.com)
          --timeout SECONDS  the longest the whole command takes (default 10; half a second more
                             to finish)
          --app-id NAME      the app whose default folder to use
          --verbose          print the SDK's own story of the send on standard error
          --help             this text

        Exit status:
          0   everything waiting for this key and endpoint was acknowledged (or nothing waited)
          1   not deliverable: the ingest rejected events or set a batch aside, or acknowledged
              nothing while events left the outbox undelivered
          64  usage error: the message says what to type instead
          66  no outbox folder there
          75  not all delivered yet, nothing lost (ingest down, a 401, a backoff longer than the
              timeout, a recovery longer than the timeout): run it again
        """

    static func run(_ arguments: [String], console: any Console, environment: [String: String]) async -> Int32 {
        let command = "sdl outbox drain"
        let options: SendOptions
        do throws(UsageError) {
            let parsed = try ParsedArguments(
                arguments, valued: ["--key", "--previous-key", "--endpoint", "--timeout", "--app-id"], flags: ["--verbose"], command: command
            )
            if parsed.wantsHelp {
                console.out(help)
                return ExitCode.success
            }
            guard parsed.positionals.count <= 1 else {
                throw UsageError("one folder at a time; unexpected \(parsed.positionals[1]).", hint: "Type `\(command) DIR`.")
            }
            let root: String
            if let folder = parsed.positionals.first {
                root = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            } else if let found = OutboxInspector.defaultRoot(appID: parsed.value("--app-id") ?? "sdl", environment: environment) {
                root = found
            } else {
                throw UsageError("no default outbox folder: HOME is not set.", hint: "Type `\(command) DIR`.")
            }
            options = try SendOptions(draining: root, parsed, environment: environment)
        } catch {
            return error.report(as: command, to: console)
        }
        // A folder that is not there holds nothing to drain; configuring a client on it would
        // make an empty outbox where the job's volume was meant to be.
        var isFolder: ObjCBool = false
        let root = options.storage?.path ?? ""
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
            console.err("\(command): no outbox at \(TerminalText.escaped(root)).")
            console.err("  Name the folder the pod or job wrote: `\(command) DIR`.")
            return ExitCode.noInput
        }
        // No `areas/`: no run ever wrote here (a fresh volume, or a folder that is no outbox).
        // Nothing to send, and nothing is made in it.
        guard FileManager.default.fileExists(atPath: root + "/areas", isDirectory: &isFolder), isFolder.boolValue else {
            console.out("\(command): nothing was waiting: \(TerminalText.escaped(root)) holds no outbox (nothing was made in it).")
            return ExitCode.success
        }
        return await SendCommand.send(options, console: console, environment: environment)
    }
}
