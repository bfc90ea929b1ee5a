import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Lifecycle of command-line tools on Linux", .stuckTestLimit, .skippedInFastLoop)
struct LifecycleTests {
    @Test("a tool that returns from main without calling anything has its events journaled by the exit hook, and its next run delivers them", .tags(.processes, .sockets))
    func exitWithoutCalls() async throws {
        // The ingest stays up and refuses every request during the tool's run, instead of being
        // stopped and started again on its port: another process on a shared host once took the
        // port in between (EADDRINUSE in CI), and the tool's batches name this endpoint.
        let ingest = try LocalIngest()
        ingest.script(Array(repeating: .status(503), count: 10_000))
        let directory = TemporaryDirectory()
        let path = directory.path
        let ending = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["exit-plain", path, "300"], environment: ["SDL_TEST_ENDPOINT": ingest.endpoint.absoluteString])
            return child.wait()
        }
        #expect(ending.reason == .exit && ending.status == 0)
        #expect(ingest.receivedEvents.isEmpty, "nothing delivered during the tool's run")
        #expect(try JournalReader.events(inOutbox: path).count == 300, "all 300 journaled at exit")

        ingest.script([]) // up again: the next run delivers to the endpoint the tool tracked for
        await withTestClient(directory: directory, endpoint: ingest.endpoint) { next in
            await next.client.flush()
            let seqs = ingest.receivedEvents.compactMap { if case .int(let seq)? = $0.properties["seq"] { Int(seq) } else { nil } }.sorted()
            #expect(seqs == Array(0..<300))
        }
        ingest.stop()
    }

    @Test("a tool that awaits SimpleDataLogs.shutdown() has every event delivered before it exits", .tags(.processes, .sockets))
    func exitWithShutdown() async throws {
        let ingest = try LocalIngest()
        let directory = TemporaryDirectory()
        let path = directory.path
        let endpoint = ingest.endpoint.absoluteString
        let ending = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["exit-shutdown", path, "300"], environment: ["SDL_TEST_ENDPOINT": endpoint])
            return child.wait()
        }
        #expect(ending.reason == .exit && ending.status == 0)
        #expect(ingest.receivedEvents.count == 300, "all delivered before the process ended")
        #expect(try JournalReader.events(inOutbox: path).isEmpty)
        ingest.stop()
        directory.remove()
    }

    @Test("the synchronous drain journals what the intake holds, within its bound")
    func synchronousDrain() async throws {
        try await withTestClient { test in
            for seq in 0..<500 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            let drained = try await onOwnThread { [client = test.client] in client.drainSynchronously(timeout: .seconds(30)) }
            #expect(drained)
            #expect(try test.journaledEvents().count == 500)
        }
    }
}
