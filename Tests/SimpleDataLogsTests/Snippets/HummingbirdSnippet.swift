// UsingItInAServer.md's Hummingbird 2 sample, compiled against stand-ins with Hummingbird's
// signatures (read from its source, `Sources/Hummingbird/Application.swift`, 2.26): only the
// sample's own lines are checked here; Hummingbird's behaviour (user services stop after the HTTP
// server, through a ServiceGroup) is the ServiceGroup's, which `ServiceLifecycleTests` covers.
import SimpleDataLogs

private struct Router {}

private struct Application {
    private var services: [any Service] = []
    init(router: Router) {}
    mutating func addServices(_ services: any Service...) { self.services += services }
    func runService() async throws {}
}

private func hummingbird(analytics: SimpleDataLogsClient, router: Router) async throws {
    var app = Application(router: router)
    app.addServices(AnalyticsService(client: analytics))
    try await app.runService()
}
