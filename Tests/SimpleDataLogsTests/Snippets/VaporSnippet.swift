// UsingItInAServer.md's Vapor 4 sample, compiled against stand-ins with Vapor's signatures (read
// from its source at 4.122, `Sources/Vapor/Application.swift`). What the sample relies on, from
// that source: `execute()` returns once the server was told to stop (SIGTERM/SIGINT), and
// `asyncShutdown()` runs the lifecycle handlers and then stops the HTTP server; so analytics,
// shut down after it, is the last to stop.
import SimpleDataLogs

private struct Environment {}

private final class Application {
    static func make(_ environment: Environment) async throws -> Application { Application() }
    func execute() async throws {}
    func asyncShutdown() async throws {}
}

private func configure(_ app: Application) async throws {}

private func vapor(analytics: SimpleDataLogsClient, env: Environment) async throws {
    let app = try await Application.make(env)
    try await configure(app)
    try await app.execute()
    try await app.asyncShutdown()
    await analytics.shutdown()
}
