import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23, smaller item: a key read from a file ends in a newline. The edge refused it (401) and
/// the SDK's line blamed the key, which looked right. Now the SDK uses the key without the
/// whitespace around it and says so once.
@Suite("Hardening: a key with a trailing newline", .stuckTestLimit, .skippedInFastLoop)
struct KeyWhitespaceTests {
    static let key = "sdl_sec_from_a_file_0000000"

    @Test("a key with a trailing newline is used trimmed: the events are delivered, one warning names the newline, the key only in part", .tags(.sockets))
    func trailingNewline() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.key))
        defer { ingest.stop() }
        try await withTestClient(key: Self.key + "\n", endpoint: ingest.endpoint) { test in
            test.client.track("read_from_a_file")
            let result = await test.client.flush()
            #expect(result.delivered == 1 && result.remaining == 0)
            #expect(ingest.receivedEvents.map(\.name) == ["read_from_a_file"])
            #expect(ingest.requests.allSatisfy { $0.status == 202 })
            let warnings = test.log.lines.filter { $0.level == .warning && $0.message.contains("a trailing newline") }
            #expect(warnings.count == 1, "\(test.log.lines.map(\.message))")
            #expect(!test.log.lines.contains { $0.message.contains(Self.key) }, "never the whole key")
            let owner = try #require(await test.client.pipeline?.outbox.owner)
            #expect(owner == AreaOwner(ingestKey: Self.key, eventsURL: ingest.endpoint.appendingPathComponent("v1/events")))
        }
    }

    @Test("what the trimming says it removed")
    func naming() {
        #expect(IngestKey.trimmedWhitespace("sdl_pub_x\n") == "a trailing newline")
        #expect(IngestKey.trimmedWhitespace("sdl_pub_x\r\n") == "a trailing newline")
        #expect(IngestKey.trimmedWhitespace(" sdl_pub_x\t") == "whitespace or newlines")
        #expect(IngestKey.trimmedWhitespace("sdl_pub_x") == nil)
        #expect(IngestKey.trimmed("  sdl_pub_x \n") == "sdl_pub_x")
    }
}
