import Foundation
@testable import SDLCommands
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// What the server article's "Run it as a fleet" says a fleet gets and does not, where no other
/// suite asserts it: the ids a restarted process resends with, sessions kept per process, and a
/// key changed by a restart.
/// (The rest is asserted elsewhere: `DeliveryTests`, `UploaderRequestBuilderTests`,
/// `OutboxCrashTests`, `KeyAndEndpointTests`, `CLIDrainTests`, `DerivedEventIDTests`,
/// `PublicCallsTests`, `UploaderKeyProbeScheduleTests`.)
@Suite("Server: what a fleet gets and does not", .stuckTestLimit, .skippedInFastLoop)
struct FleetTests {
    @Test("a batch whose answers were lost is resent by the next process on the folder with the same batch id and the event ids track() gave: each event counts once", .tags(.sockets))
    func resentByTheNextProcess() async throws {
        let ingest = try LocalIngest()
        let directory = TemporaryDirectory()
        defer { ingest.stop(); directory.remove() }
        // Every answer to the first process is lost after the ingest counted the batch: its
        // flush's and, if it makes one, its shutdown's.
        ingest.script(Array(repeating: .dropResponseAfterCounting, count: 8))
        let first = TestClient(directory: directory, endpoint: ingest.endpoint)
        for seq in 0..<10 { first.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await first.client.flush()
        await shutDown(first.client)
        let firstIDs = ingest.rawEvents.map(\.eventID)
        #expect(firstIDs.count >= 10 && Set(firstIDs).count == 10, "the first process's tries reached the ingest")

        ingest.script([])
        let next = TestClient(directory: directory, endpoint: ingest.endpoint)
        await next.client.flush()
        await shutDown(next.client)

        let requests = ingest.requests.filter { $0.path == "/v1/events" }
        #expect(requests.count >= 2)
        #expect(Set(requests.compactMap(\.batchID)).count == 1, "one SDL-Batch-ID across both processes")
        #expect(ingest.rawEvents.count > firstIDs.count, "the next process sent the batch again")
        #expect(Set(ingest.rawEvents.map(\.eventID)) == Set(firstIDs), "with the ids the first one stamped")
        #expect(ingest.receivedEvents.count == 10 && ingest.summary.duplicates == ingest.rawEvents.count - 10, "each event counted once")
        #expect(next.client.counters.delivered == 10)
    }

    @Test("one device whose requests land on two pods (two clients, two folders) with sessions captured, has a session in each", .tags(.sockets))
    func sessionsPerProcess() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        for pod in ["pod-a", "pod-b"] {
            await withTestClient(endpoint: ingest.endpoint, adjust: { $0.autocapture = .sessions }) { test in
                test.client.track("request_handled", properties: ["pod": .string(pod)], deviceID: "customer-42")
                await test.client.flush()
            }
        }
        let handled = ingest.receivedEvents.filter { $0.name == "request_handled" }
        #expect(handled.count == 2 && handled.allSatisfy { $0.deviceID == "customer-42" && $0.sessionID != nil })
        #expect(Set(handled.map(\.sessionID)).count == 2, "a session per process")
    }

    @Test("a restart with another key that does not name the old one in previousIngestKeys: the old key's batches stay in their area, named in one info line, and a client with the old key still delivers them", .tags(.sockets))
    func otherKeyAfterRestart() async throws {
        let oldKey = "sdl_sec_rotated_old_000000000", newKey = "sdl_sec_rotated_new_111111111"
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-rotation")
        defer { ingest.stop(); folder.remove() }
        // The old key's process leaves three events on disk (it sends nothing: the key was revoked).
        var quiet = ClientTuning()
        quiet.startsUploader = false
        let old = TestClient(key: oldKey, tuning: quiet, directory: folder, endpoint: ingest.endpoint)
        for seq in 0..<3 { old.client.track("before_rotation", properties: ["seq": .int(Int64(seq))]) }
        await old.drain()
        await shutDown(old.client)

        let restarted = TestClient(key: newKey, directory: folder, endpoint: ingest.endpoint, adjust: { $0.logLevel = .info })
        restarted.client.track("after_rotation")
        await restarted.client.flush()
        await shutDown(restarted.client)
        #expect(ingest.receivedEvents.map(\.name) == ["after_rotation"], "the new key sends only its own events")
        #expect(restarted.client.counters.recovered == 0)
        #expect(restarted.log.lines(containing: "with events for another key or endpoint untouched").count == 1)
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 3)

        // `sdl outbox drain DIR --key OLD` runs this client (CLIDrainTests); here, in process.
        let drainer = TestClient(key: oldKey, directory: folder, endpoint: ingest.endpoint)
        await drainer.client.flush()
        await shutDown(drainer.client)
        #expect(ingest.receivedEvents.map(\.name).sorted() == ["after_rotation", "before_rotation", "before_rotation", "before_rotation"])
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
    }
}
