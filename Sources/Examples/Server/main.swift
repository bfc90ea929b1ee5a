// A server-shaped program: one analytics client for the process with the server profile,
// waves of concurrent request handlers with per-request device ids, and a graceful shutdown on
// SIGTERM or SIGINT that makes one bounded last send. Run `swift run sdl ingest` in another
// terminal, then `swift run ExampleServer`, and stop it with Ctrl-C.
//
// Environment: SDL_ENDPOINT (http://localhost:4001), SDL_INGEST_KEY, SDL_STORAGE_DIR,
// EXAMPLE_WAVES (20), EXAMPLE_HANDLERS (100 per wave), EXAMPLE_PAUSE_MS (200 between waves),
// EXAMPLE_SHUTDOWN_SECONDS (5, the last send's limit), and
// EXAMPLE_IDLE=1 to keep serving (idle) after the waves until SIGTERM or SIGINT instead of
// shutting down by itself.
import Foundation
import SimpleDataLogs

/// A request as a web framework would hand it over.
struct Request: Sendable {
    var id: Int
    var deviceID: String
}

/// A handler that tracks 50 events per request: half with the id on each event, half inside a
/// task-local scope whose child tasks inherit it. Both must carry this request's device id.
func handle(_ request: Request, analytics: SimpleDataLogsClient) async {
    for step in 0..<25 {
        analytics.track("request_step", properties: ["request": .int(Int64(request.id)), "step": .int(Int64(step))], deviceID: request.deviceID)
    }
    await analytics.withDeviceID(request.deviceID) {
        await withTaskGroup(of: Void.self) { steps in
            for step in 25..<50 {
                steps.addTask {
                    analytics.track("request_step", properties: ["request": .int(Int64(request.id)), "step": .int(Int64(step))])
                }
            }
        }
    }
}

let environment = ProcessInfo.processInfo.environment
func setting(_ name: String, default value: Int) -> Int { environment[name].flatMap(Int.init) ?? value }
let waves = setting("EXAMPLE_WAVES", default: 20)
let handlersPerWave = setting("EXAMPLE_HANDLERS", default: 100)
let pause = Duration.milliseconds(setting("EXAMPLE_PAUSE_MS", default: 200))
let shutdownLimit = Duration.seconds(setting("EXAMPLE_SHUTDOWN_SECONDS", default: 5))

let analytics = SimpleDataLogsClient()
var configuration = SimpleDataLogsClient.Configuration.server(
    ingestKey: environment["SDL_INGEST_KEY"] ?? "sdl_sec_example_server",
    endpoint: URL(string: environment["SDL_ENDPOINT"] ?? "http://localhost:4001")!
)
configuration.logLevel = .info
analytics.configure(configuration)
#if os(Linux)
// SIGTERM (a container stopping) or SIGINT (Ctrl-C): stop taking events, journal what is queued,
// send once within 5 seconds, keep the rest on disk, and exit with 128 + the signal.
analytics.shutdownOnTerminationSignals(timeLimit: shutdownLimit)
#endif
print("serving \(waves) waves of \(handlersPerWave) requests")

for wave in 0..<waves {
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<handlersPerWave {
            let id = wave * handlersPerWave + index
            group.addTask { await handle(Request(id: id, deviceID: "device-\(id % 250)"), analytics: analytics) }
        }
    }
    // Progress goes to standard error, as a server's log lines do.
    FileHandle.standardError.write(Data("wave \(wave) handled\n".utf8))
    // Requests arrive over time; in a real server they come from the network.
    try? await Task.sleep(for: pause)
}

#if os(Linux)
if environment["EXAMPLE_IDLE"] == "1" {
    // An idle server: nothing to do until a signal ends the process (through the handler above).
    while true { try? await Task.sleep(for: .seconds(3_600)) }
}
#endif

// The traffic ended by itself: the same bounded shutdown as on SIGTERM.
await analytics.shutdown(timeLimit: shutdownLimit)
print("handled \(waves * handlersPerWave) requests; \(analytics.counters)")
