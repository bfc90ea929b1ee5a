import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// The routing rule, decided in platform-neutral code: a sink filtered by the configured level
/// (standard error, custom sinks) sees what `logLevel` and `SDL_LOG_LEVEL` allow; a sink the
/// platform filters (the unified log on Apple platforms) sees every line at its own level, with
/// the default configuration, so `log stream … --level debug` shows the debug story.
@Suite("Logging: which lines reach which sink", .stuckTestLimit, .skippedInFastLoop)
struct LogRoutingTests {
    @Test("the rule: the configured level for level-filtered sinks; everything but off for platform-filtered ones")
    func rule() {
        for level in LogLevel.allCases {
            #expect(LogFiltering.byConfiguredLevel.threshold(configured: level) == level)
            #expect(LogFiltering.byPlatform.threshold(configured: level) == (level == .off ? .off : .debug))
        }
        #expect(SimpleDataLogsClient.defaultLogSink.filtering == .byConfiguredLevel, "standard error on Linux")
        #expect(RecordingLogSink().filtering == .byConfiguredLevel)
    }

    @Test("the logger passes a line when the sink's threshold allows it, and never builds one it drops")
    func logger() {
        let platform = RecordingLogSink(filtering: .byPlatform)
        let standard = RecordingLogSink()
        for sink in [platform, standard] {
            let logger = SDKLogger(level: .warning, sink: sink)
            logger.debug("d")
            logger.info("i")
            logger.warning("w")
        }
        #expect(platform.lines.map(\.level) == [.debug, .info, .warning])
        #expect(standard.lines.map(\.level) == [.warning])
        let silenced = SDKLogger(level: .off, sink: platform)
        silenced.error({ Issue.record("an off logger built a line"); return "e" }())
        #expect(platform.lines.count == 3)
    }

    @Test("default configuration: the debug lines of a send reach a platform-filtered sink, not a level-filtered one; SDL_LOG_LEVEL governs the latter", .tags(.sockets))
    func throughAClient() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        func send(to sink: RecordingLogSink, environment: [String: String] = [:]) async throws {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let client = SimpleDataLogsClient(
                clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: sink, environment: environment
            )
            client.configure(SimpleDataLogsClient.Configuration(
                ingestKey: "sdl_pub_routing000000000", endpoint: ingest.endpoint, storageDirectory: directory.url
            ))
            for seq in 0..<3 { client.track("routed", properties: ["seq": .int(Int64(seq))]) }
            try await withTimeLimit(waitingFor: "a flush and a shutdown") {
                _ = await client.flush()
                await client.shutdown(timeLimit: .seconds(5))
            }
        }
        let platform = RecordingLogSink(filtering: .byPlatform)
        try await send(to: platform)
        #expect(platform.lines(containing: "Sending batch ").first?.level == .debug)
        #expect(platform.lines(containing: ": HTTP 202 after ").count == 1)
        #expect(platform.lines(containing: "Configured: ").first?.level == .info)
        #expect(platform.lines(containing: "Shut down: ").first?.level == .info)

        let standard = RecordingLogSink()
        try await send(to: standard)
        #expect(standard.lines.allSatisfy { $0.level >= .warning }, "\(standard.lines)")

        let operatorSink = RecordingLogSink()
        try await send(to: operatorSink, environment: ["SDL_LOG_LEVEL": "debug"])
        #expect(operatorSink.lines(containing: ": HTTP 202 after ").count == 1)

        let silenced = RecordingLogSink(filtering: .byPlatform)
        try await send(to: silenced, environment: ["SDL_LOG_LEVEL": "off"])
        #expect(silenced.lines.isEmpty, "off silences even the platform's log")
        #expect(ingest.summary.accepted == 12)
    }
}
