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

#if os(Linux)
@Suite("Hardening: clients released in a loop keep the thread count bounded", .stuckTestLimit, .tags(.poolSaturation), .skippedInFastLoop)
struct ReleasedClientThreadTests {
    /// Threads of this process named by the SDK (`sdl.stages`, `sdl.outbox`, …).
    static func sdlThreads() -> Int {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return ids.filter { id in
            ((try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? "").hasPrefix("sdl.")
        }.count
    }

    /// Clients made and released. Fewer under a sanitizer: the pool stays blocked for the whole
    /// loop (about a second here, ten times that under ThreadSanitizer), and every other test of
    /// the run waits meanwhile; ten still show a teardown that needs the pool (the first hangs).
    static let rounds = isUnderSanitizer ? 10 : 50

    /// Until issue 23 a released client's teardown was a task on the cooperative pool: while the
    /// pool was busy (a server making clients in a loop on it), no teardown started, and every
    /// client's four threads stayed (18,352 at peak). With every pool thread blocked, each
    /// released client must still give its threads back, so the count never grows.
    @Test("50 clients configured and released one after another while the cooperative pool is blocked: each gives its threads back at once")
    func releasedWhilePoolIsBusy() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (released, baseline, peak) = try await whileCooperativePoolIsBlocked { () -> (Int, Int, Int) in
            // Counted with the pool blocked: other tests' clients cannot start meanwhile.
            let baseline = Self.sdlThreads()
            var peak = 0
            for round in 0..<Self.rounds {
                let done = DispatchSemaphore(value: 0)
                do {
                    var tuning = ClientTuning()
                    tuning.startsUploader = false
                    var faults = FaultInjection()
                    faults.releasedWithoutShutdown = { done.signal() }
                    let client = SimpleDataLogsClient(
                        clock: ManualClock(), wallClock: SettableWallClock(), logSink: RecordingLogSink(), tuning: tuning,
                        faults: faults, environment: [:]
                    )
                    client.configure(SimpleDataLogsClient.Configuration(
                        ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url
                    ))
                    client.track("released", properties: ["round": .int(Int64(round))])
                    peak = max(peak, Self.sdlThreads())
                }
                // Released: its teardown must end without a pool thread (bounded in real time).
                guard done.wait(timeout: .after(.seconds(30))) == .success else { return (round, baseline, peak) }
            }
            return (Self.rounds, baseline, peak)
        }
        #expect(released == Self.rounds, "client \(released) was never given back while the pool was busy; \(Self.sdlThreads()) SDK threads")
        #expect(peak <= baseline + 16, "\(peak) of the SDK's threads at once (\(baseline) before)")
    }
}
#endif
