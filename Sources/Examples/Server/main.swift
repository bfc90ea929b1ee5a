// A tiny server-style program: one analytics client for the process, a request loop that
// handles requests concurrently, a per-request device id, and the client's lifetime tied to the
// server's. Run `swift run sdl ingest` in another terminal, then `swift run ExampleServer`.
import Foundation
import SimpleDataLogs

/// A request as a web framework would hand it over.
struct Request: Sendable {
    var path: String
    var deviceID: String
}

/// The handler: tracks without knowing the device id, which the scope provides.
func handle(_ request: Request, analytics: SimpleDataLogsClient) async {
    analytics.track("request_handled", properties: ["path": .string(request.path)])
    if request.path == "/checkout" {
        analytics.track("order_placed", properties: ["total_cents": 1_299, "currency": "EUR"])
    }
}

let endpoint = URL(string: ProcessInfo.processInfo.environment["SDL_ENDPOINT"] ?? "http://localhost:4001")!
let analytics = SimpleDataLogsClient()
analytics.configure(SimpleDataLogsClient.Configuration(
    ingestKey: ProcessInfo.processInfo.environment["SDL_INGEST_KEY"] ?? "sdl_sec_example_server",
    endpoint: endpoint,
    autocapture: .sessions,
    batchSize: 200,
    maxConcurrentRequests: 2
))

// The analytics client runs for as long as the server does.
let lifetime = Task { await analytics.run() }

// The request loop: in a real server these come from the network.
let requests = (0..<1_000).map { index in
    Request(path: index % 10 == 0 ? "/checkout" : "/home", deviceID: "device-\(index % 25)")
}
await withTaskGroup(of: Void.self) { group in
    for request in requests {
        group.addTask {
            await analytics.withDeviceID(request.deviceID) {
                await handle(request, analytics: analytics)
            }
        }
    }
}

// Graceful shutdown: cancelling `run()` journals what is queued, sends once, keeps the rest.
lifetime.cancel()
await lifetime.value
print("handled \(requests.count) requests; \(analytics.counters)")
