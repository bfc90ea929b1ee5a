import Foundation
import Testing
import SDLCommands
import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("CLI: sdl demo", .stuckTestLimit, .skippedInFastLoop)
struct CLIDemoTests {
    @Test("the demo's code path delivers every event exactly once and the counters agree", .tags(.sockets, .burst))
    func everyEventOnce() async {
        var options = DemoOptions()
        // Smaller than `sdl demo`, with the same chapters: two burst chunks, an outage.
        options.burstSize = 1_000
        options.burstChunk = 500
        let console = CapturedConsole()
        let result = await Demo.run(options: options, console: console)
        #expect(result.failure == nil, "\(result.failure ?? "")\n\(console.errors)")
        #expect(result.missing.isEmpty, "missing seq \(result.missing.prefix(20))")
        #expect(result.doubled.isEmpty, "doubled seq \(result.doubled.prefix(20))")
        #expect(result.tracked == 5 + 1_000 + 25)
        // Autocapture adds app_launched and two session_starts to what the demo tracks itself:
        // the launch starts a session before setDeviceID, the first event after it another.
        #expect(result.counters.tracked == result.tracked + 3)
        #expect(result.counters.delivered == result.counters.tracked && result.counters.isBalanced, "\(result.counters)")
        #expect(result.counters.skippedBacklog == 0)
        #expect(result.ingest.byStatus[503] == options.outageFailures, "the outage really happened")
        #expect(result.succeeded)
        let output = console.output
        #expect(output.contains("Every one of the 1,033 events arrived exactly once"))
        #expect(output.contains("shortens every wait 50×"), "the demo says the backoff is shortened")
        #expect(output.contains("← ") && output.contains("app_launched") && output.contains("purchase_restored"))
        #expect(output.contains("batches/: 1 files, 25 events"), "the outage's events shown waiting on disk")
    }

    @Test("the demo leaves no temporary folder behind", .tags(.sockets))
    func cleansUp() async throws {
        var options = DemoOptions()
        options.burstSize = 50
        options.outageEvents = 5
        options.outageFailures = 1
        let console = CapturedConsole()
        let result = await Demo.run(options: options, console: console)
        #expect(result.succeeded, "\(console.errors)")
        let folderLine = try #require(console.output.split(separator: "\n").first { $0.contains("outbox   /") })
        let folder = try #require(folderLine.split(separator: " ").first { $0.hasPrefix("/") })
        #expect(!FileManager.default.fileExists(atPath: String(folder)))
    }
}
