#if os(Linux)
import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a client released without shutdown gives back its files and threads", .stuckTestLimit)
struct ReleasedClientTests {
    /// This process's descriptors open on anything under `folder`.
    static func descriptors(under folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(folder) }
    }

    /// Configures a client on `directory`, tracks `count` events, and drops it.
    static func trackAndRelease(_ count: Int, in directory: TemporaryDirectory, log: RecordingLogSink, finished: @escaping @Sendable () -> Void) {
        var tuning = ClientTuning()
        tuning.startsUploader = false
        var faults = FaultInjection()
        faults.releasedWithoutShutdown = finished
        let client = SimpleDataLogsClient(
            clock: ManualClock(), wallClock: SettableWallClock(), logSink: log, tuning: tuning, faults: faults, environment: [:]
        )
        client.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url
        ))
        for seq in 0..<count { client.track("released", properties: ["seq": .int(Int64(seq))]) }
        _ = client.blockUntilJournaled(atLeast: 1, timeout: .seconds(30))
    }

    @Test("released: its events are journaled, its area lock and descriptors are given back, and the next client gets the same area and every event")
    func released() async throws {
        let directory = TemporaryDirectory()
        let log = RecordingLogSink()
        let path = try #require(directory.path.removingPercentEncoding)
        // The hook fires from the client's deinit, once its files are given back; a client that
        // something kept alive would never fire it, so the wait has a wall-clock bound.
        let released = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Locked(false)
            @Sendable func finish(_ value: Bool) {
                if once.withLock({ done in defer { done = true }; return !done }) { continuation.resume(returning: value) }
            }
            // On a thread of its own: it blocks until the journal has the events.
            Thread { Self.trackAndRelease(25, in: directory, log: log, finished: { finish(true) }) }.start()
            DispatchQueue.global().asyncAfter(deadline: .after(.seconds(30) * sanitizerSlack)) { finish(false) }
        }
        #expect(released, "the released client never gave back its files")
        #expect(Self.descriptors(under: path).isEmpty, "\(Self.descriptors(under: path))")
        #expect(log.lines.filter { $0.level == .warning && $0.message.contains("released without shutdown()") }.count == 1)

        try await withTestClient(directory: directory) { next in
            let events = try await next.flushedEvents()
            #expect(events.filter { $0.name == "released" }.count == 25)
            let area = await next.client.pipeline!.outbox.area?.folder
            #expect(area == directory.path + "/areas/a0", "the released client's area was free again")
        }
    }
}
#endif
