import Foundation
import SDLCommands
import SimpleDataLogsTesting

/// Runs one `sdl` command line in-process and returns its exit status and what it printed.
/// - Parameters:
///   - arguments: The words after `sdl`.
///   - environment: The environment the command sees; empty by default, so a developer's
///     `SDL_INGEST_KEY` or `SDL_STORAGE_DIR` never leaks into a test.
func sdl(_ arguments: String..., environment: [String: String] = [:]) async -> (status: Int32, console: CapturedConsole) {
    await sdl(arguments, environment: environment)
}

/// The array form of ``sdl(_:environment:)``.
func sdl(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, console: CapturedConsole) {
    let console = CapturedConsole()
    let status = await SDL.run(arguments, console: console, environment: environment)
    return (status, console)
}

/// A loopback port nothing listens on: a local ingest binds it, then stops.
func closedLoopbackPort() throws -> Int {
    let ingest = try LocalIngest()
    let port = ingest.port
    ingest.stop()
    return port
}
