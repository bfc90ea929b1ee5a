import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// `Sources/Examples/Server` run as a real process, the way a container runs a server: traffic
/// from concurrent handlers, then `SIGTERM` while it is still serving, against an edge that takes
/// 300 ms to answer.
@Suite("Servers: the example server under SIGTERM", .stuckTestLimit, .tags(.processes, .sockets, .burst), .skippedInFastLoop)
struct ExampleServerTests {
    @Test("SIGTERM mid-traffic against a 300 ms edge: exit 143 within the limit, every tracked event delivered exactly once with its request's device id, nothing left on disk")
    func sigtermMidTraffic() async throws {
        let binary = try #require(ChildProcess.executable("ExampleServer"), "build with --build-tests so ExampleServer is beside the tests")
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(addedLatency: .milliseconds(300)))
        let directory = TemporaryDirectory()
        let child = try SDLChild(binary, [], environment: [
            "SDL_ENDPOINT": ingest.endpoint.absoluteString,
            "SDL_STORAGE_DIR": directory.path,
            // 8 waves of 1,000 events, 100 ms apart, then idle until the signal: at most 8,000
            // events, what a 5 s last send through a 300 ms edge takes even on a loaded machine,
            // so "all delivered" is a fact, not a race. A test delayed past the traffic (a busy
            // machine) still signals a live server, just an idle one.
            "EXAMPLE_WAVES": "8",
            "EXAMPLE_HANDLERS": "20",
            "EXAMPLE_PAUSE_MS": "100",
            "EXAMPLE_IDLE": "1",
            // 5 s, the default; under a sanitizer (everything 5 to 20 times slower, the ingest
            // too) the same promise needs a longer limit.
            "EXAMPLE_SHUTDOWN_SECONDS": String(5 * sanitizerSlack),
        ])
        // Three waves handled (their progress lines are on standard error) and the next under
        // way: SIGTERM lands while handlers are tracking, whatever the machine's speed.
        #expect(try await child.waitForError("\"wave 2 handled\"") { $0.contains("wave 2 handled") }, "the server closed standard error before wave 2")
        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let result = try await child.finish(limit: .seconds(60))
        let elapsed = ContinuousClock.now - signalled

        // A sanitizer's report, if any, from its first line: the end of it alone names no cause.
        let report = result.errors.range(of: "ERROR: ").map { String(result.errors[$0.lowerBound...].prefix(6_000)) } ?? String(result.errors.suffix(2_000))
        #expect(result.status == 143, "128 + SIGTERM; stderr: \(report)")
        // The last send is bounded by 5 s; the rest is journaling what was queued and exiting.
        // Not run under the saturation gate (.noPoolSaturation): the server is a process of its
        // own, and a saturation here delays only this test's noticing its exit, by the length of
        // one saturation (about 1 s), against a bound of 15 s; holding the gate for this whole
        // test (a minute under a sanitizer) would queue every saturation behind it instead.
        #expect(elapsed < .seconds(15 * sanitizerSlack), "exited \(elapsed) after SIGTERM")
        #expect(result.errors.contains("Signal 15 received"))

        let received = ingest.receivedEvents
        #expect(received.count >= 3_000, "at least the three waves before SIGTERM")
        #expect(ingest.rawEvents.count == received.count, "no event was sent twice")
        let summary = try #require(result.errors.split(separator: "\n").first { $0.contains("Shut down:") }, "the closing line")
        #expect(summary.contains("Shut down: \(received.count) events delivered since launch, 0 kept on disk"), "\(summary)")
        #expect(try JournalReader.events(inOutbox: directory.path, includeSetAside: true).isEmpty, "every accepted event was delivered before exit")
        // The server profile's receipt at shutdown is about the process, not a request: no device id.
        #expect(received.filter { $0.name == "delivery_receipt" }.count == 1, "one completeness receipt, made at shutdown")
        let mismatched = received.filter { event in
            guard event.name != "delivery_receipt" else { return false }
            guard case .int(let request)? = event.properties["request"] else { return true }
            return event.deviceID != "device-\(request % 250)"
        }
        #expect(mismatched.isEmpty, "\(mismatched.count) events carry another request's device id")
        ingest.stop()
        directory.remove()
    }
}
