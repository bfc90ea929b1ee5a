import Foundation
import SDLCommands
import SimpleDataLogsTesting
import Testing

/// Runs one `sdl` command line in-process and returns its exit status and what it printed.
///
/// Bounded in real time: a command that has not returned after ``testWaitLimit`` (a send whose
/// `--timeout` did not hold, an `ingest` nobody stops) records an issue naming the command line
/// and returns status -1 with what it printed so far, instead of hanging the run.
/// - Parameters:
///   - arguments: The words after `sdl`.
///   - environment: The environment the command sees; empty by default, so a developer's
///     `SDL_INGEST_KEY` or `SDL_STORAGE_DIR` never leaks into a test.
func sdl(
    _ arguments: String..., environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
) async -> (status: Int32, console: CapturedConsole) {
    await sdl(arguments, environment: environment, sourceLocation: sourceLocation)
}

/// The array form of ``sdl(_:environment:sourceLocation:)``.
func sdl(
    _ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
) async -> (status: Int32, console: CapturedConsole) {
    let console = CapturedConsole()
    do {
        let status = try await withTimeLimit(waitingFor: "`sdl \(arguments.joined(separator: " "))` to return") {
            await SDL.run(arguments, console: console, environment: environment)
        }
        return (status, console)
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
        return (-1, console)
    }
}

/// A loopback port nothing listens on, which a local ingest may listen on later
/// (``reusableLoopbackPort()``: outside the ephemeral range, so no outgoing connection takes it).
func closedLoopbackPort() throws -> Int {
    try reusableLoopbackPort()
}
