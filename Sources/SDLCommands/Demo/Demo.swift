import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// `sdl demo`: the SDK end to end on this machine alone. A local ingest in this process, a
/// client configured against it in a temporary folder, a realistic sequence of events, a burst,
/// and an outage the outbox rides out; then the counters, checked against what the ingest saw.
package enum Demo {
    /// Runs the whole demo, writing the story to `console`.
    /// - Parameters:
    ///   - options: Sizes and timings.
    ///   - console: Where the story goes.
    /// - Returns: What arrived, checked event by event; ``DemoResult/succeeded`` decides the exit status.
    package static func run(options: DemoOptions = DemoOptions(), console: any Console) async -> DemoResult {
        console.out("sdl demo: SimpleDataLogs \(SimpleDataLogsVersion.current) end to end, on this machine only.")
        console.out("")
        let ingest: LocalIngest
        do {
            ingest = try LocalIngest()
        } catch {
            var result = DemoResult()
            result.failure = "could not start the local ingest: \(error)"
            console.err("sdl demo: \(result.failure ?? "")")
            return result
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-demo-\(UniqueID.random().uuidString)")
        var session = DemoSession(ingest: ingest, folder: folder, options: options, console: console)
        defer {
            ingest.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        return await session.play()
    }
}
