// A command-line tool: configure, track, and await shutdown so the events are sent before the
// process exits (without it they are journaled at exit and sent by the next run).
// Run `swift run sdl ingest` in another terminal, then `swift run ExampleCommandLineTool`.
import Foundation
import SimpleDataLogs

let endpoint = URL(string: ProcessInfo.processInfo.environment["SDL_ENDPOINT"] ?? "http://localhost:4001")!
SimpleDataLogs.configure(
    ingestKey: ProcessInfo.processInfo.environment["SDL_INGEST_KEY"] ?? "sdl_sec_example_tool",
    endpoint: endpoint
)

let started = Date()
let files = CommandLine.arguments.dropFirst()
for file in files {
    SimpleDataLogs.track("file_processed", properties: ["extension": .string((file as NSString).pathExtension)])
}
SimpleDataLogs.track("export_finished", properties: [
    "files": .int(Int64(files.count)),
    "duration_ms": .int(Int64(Date().timeIntervalSince(started) * 1_000)),
])

await SimpleDataLogs.shutdown(timeLimit: .seconds(5))
print("tracked \(files.count + 1) events; \(SimpleDataLogs.counters)")
