import Foundation
import Testing
@testable import SimpleDataLogs
@testable import SDLCommands
import SimpleDataLogsTesting

/// Issue 23, item 2: events left on disk go only to the key and endpoint they were tracked for.
/// Every test uses real files and real ingests on loopback, each taking one key only (a request
/// with another key gets 401, as at the edge), so an event sent with the wrong key or to the
/// wrong host shows as an event at the wrong ingest, or as one missing.
@Suite("Hardening: leftover events keep their key and endpoint", .stuckTestLimit, .skippedInFastLoop)
struct KeyAndEndpointTests {
    static let keyA = "sdl_sec_tenant_a_000000000000"
    static let keyB = "sdl_sec_tenant_b_111111111111"

    /// A client that records its key and endpoint but sends nothing, so its events stay on disk.
    static func leavingEvents(key: String, endpoint: URL, in folder: TemporaryDirectory) -> TestClient {
        var quiet = ClientTuning()
        quiet.startsUploader = false
        return TestClient(key: key, tuning: quiet, directory: folder, endpoint: endpoint)
    }

    /// Tracks `count` events named `name` and shuts the client down: they stay on disk.
    static func leave(_ count: Int, named name: String, by test: TestClient) async {
        for seq in 0..<count { test.client.track(name, properties: ["seq": .int(Int64(seq))]) }
        await test.drain()
        await shutDown(test.client)
    }

    @Test("two tenants on one folder, restarted in the other order: each ingest and key gets its own events, all of them, and no other's", .tags(.sockets))
    func twoTenantsAcrossARestart() async throws {
        let ingestA = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyA))
        let ingestB = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyB))
        let folder = TemporaryDirectory("sdl-keys")
        defer { ingestA.stop(); ingestB.stop(); folder.remove() }
        let a = Self.leavingEvents(key: Self.keyA, endpoint: ingestA.endpoint, in: folder)
        await a.drain() // a takes a0 before b starts, b takes a1
        let b = Self.leavingEvents(key: Self.keyB, endpoint: ingestB.endpoint, in: folder)
        await Self.leave(30, named: "tenant_a", by: a)
        await Self.leave(20, named: "tenant_b", by: b)

        // B starts first and meets A's area first: before owners were recorded, it took a0 and
        // sent A's 30 events to its own ingest under its own key.
        let b2 = TestClient(key: Self.keyB, directory: folder, endpoint: ingestB.endpoint)
        await b2.drain()
        let a2 = TestClient(key: Self.keyA, directory: folder, endpoint: ingestA.endpoint)
        let deliveredB = await b2.client.flush()
        let deliveredA = await a2.client.flush()
        await shutDown(b2.client)
        await shutDown(a2.client)

        #expect(ingestB.receivedEvents.map(\.name) == Array(repeating: "tenant_b", count: 20), "\(ingestB.receivedEvents.map(\.name))")
        #expect(ingestA.receivedEvents.map(\.name) == Array(repeating: "tenant_a", count: 30), "\(ingestA.receivedEvents.map(\.name))")
        #expect(Set(ingestA.receivedEvents.compactMap { $0.properties["seq"] }).count == 30)
        #expect(deliveredA.remaining == 0 && deliveredB.remaining == 0, "another tenant's events are not counted as this one's to send")
        #expect((ingestA.requests + ingestB.requests).allSatisfy { $0.status == 202 }, "no request went with a key its ingest refuses")
        #expect(b2.client.counters.recovered == 20 && a2.client.counters.recovered == 30, "each counts only its own leftovers")
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
    }

    @Test("the same key, another endpoint (staging, then production): the leftovers wait for the endpoint they were tracked for", .tags(.sockets))
    func sameKeyOtherEndpoint() async throws {
        let staging = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyA))
        let production = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyA))
        let folder = TemporaryDirectory("sdl-keys")
        defer { staging.stop(); production.stop(); folder.remove() }
        await Self.leave(5, named: "staging_event", by: Self.leavingEvents(key: Self.keyA, endpoint: staging.endpoint, in: folder))

        let live = TestClient(key: Self.keyA, directory: folder, endpoint: production.endpoint)
        live.client.track("production_event")
        let result = await live.client.flush()
        await shutDown(live.client)
        #expect(production.receivedEvents.map(\.name) == ["production_event"])
        #expect(result.delivered == 1 && result.remaining == 0, "another endpoint's events are not this client's to count")
        #expect(staging.receivedEvents.isEmpty)

        let back = TestClient(key: Self.keyA, directory: folder, endpoint: staging.endpoint)
        _ = await back.client.flush()
        await shutDown(back.client)
        #expect(staging.receivedEvents.map(\.name) == Array(repeating: "staging_event", count: 5))
        #expect(production.receivedEvents.count == 1)
    }

    @Test("sdl outbox shows the key in part and the endpoint each area's batches wait for; sdl send with another key leaves them and says so; the owner's send delivers them", .tags(.sockets))
    func sendWithAnotherKey() async throws {
        let ingestA = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyA))
        let ingestB = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyB))
        let folder = TemporaryDirectory("sdl-keys")
        defer { ingestA.stop(); ingestB.stop(); folder.remove() }
        await Self.leave(3, named: "from_a", by: Self.leavingEvents(key: Self.keyA, endpoint: ingestA.endpoint, in: folder))
        let eventsURLA = ingestA.endpoint.absoluteString + "/v1/events"

        let owner = try String(contentsOfFile: folder.path + "/areas/a0/owner", encoding: .utf8)
        #expect(!owner.contains(Self.keyA) && owner.contains(IngestKey.redacted(Self.keyA)) && owner.contains(eventsURLA), "\(owner)")
        let (shown, outbox) = await sdl("outbox", folder.path)
        #expect(shown == 0)
        let lines = outbox.output.split(separator: "\n").map(String.init)
        let areaLine = try #require(lines.firstIndex { $0.hasPrefix("  area a0:") })
        // The two tenants' keys share their redacted form (`sdl_sec_tena…`); the fingerprint's
        // first digits tell them apart.
        let keyTextA = AreaOwner(ingestKey: Self.keyA, eventsURL: URL(string: eventsURLA)!).keyText
        #expect(IngestKey.redacted(Self.keyA) == IngestKey.redacted(Self.keyB))
        #expect(keyTextA != AreaOwner(ingestKey: Self.keyB, eventsURL: URL(string: eventsURLA)!).keyText && keyTextA.hasPrefix(IngestKey.redacted(Self.keyA)))
        #expect(lines[areaLine + 1] == "    waiting for key \(keyTextA) at \(eventsURLA): only a client with that key and endpoint sends the files below", "\(lines)")
        #expect(outbox.output.contains("batches/: 1 files, 3 events"), "\(outbox.output)")
        #expect(!outbox.output.contains(Self.keyA))

        let (status, console) = await sdl(
            "send", "from_b", "--key", Self.keyB, "--endpoint", ingestB.endpoint.absoluteString, "--storage", folder.path, "--timeout", "10"
        )
        #expect(status == 0, "\(console.errors)")
        #expect(ingestB.receivedEvents.map(\.name) == ["from_b"], "\(ingestB.receivedEvents.map(\.name))")
        #expect(ingestA.receivedEvents.isEmpty)
        #expect(console.errors.contains("sdl send: left 3 events in area a0 alone: they are for key \(keyTextA) at \(eventsURLA)"), "\(console.errors)")
        #expect(!console.errors.contains(Self.keyA) && !console.output.contains(Self.keyA))
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 3, "A's events untouched")

        let (again, byA) = await sdl(
            "send", "from_a_later", "--key", Self.keyA, "--endpoint", ingestA.endpoint.absoluteString, "--storage", folder.path, "--timeout", "10"
        )
        #expect(again == 0, "\(byA.errors)")
        #expect(ingestA.receivedEvents.map(\.name).sorted() == ["from_a", "from_a", "from_a", "from_a_later"])
        #expect(ingestB.receivedEvents.count == 1)
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
    }

    @Test("a crash recorded by a process of one key is sent by the next launch of that key, not by another key's launch that comes first", .tags(.processes, .sockets))
    func crashRecordKeepsItsKey() async throws {
        // OutboxCrashChild's crash modes use TestClient's key; their endpoint is this ingest's port.
        let port = try closedLoopbackPort()
        let directory = TemporaryDirectory("sdl-keys")
        defer { directory.remove() }
        let path = directory.path
        let environment = [
            "SDL_TEST_ENDPOINT": "http://127.0.0.1:\(port)",
            "TSAN_OPTIONS": "handle_segv=0:handle_sigill=0:handle_abort=0",
            "ASAN_OPTIONS": "handle_segv=0:handle_sigill=0:handle_abort=0:detect_leaks=0",
        ]
        let ending = try await onOwnThread { try ChildProcess("OutboxCrashChild", ["crash-abort", path], environment: environment).wait() }
        #expect(ending.reason == .uncaughtSignal)

        let ingestB = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyB))
        defer { ingestB.stop() }
        let other = TestClient(key: Self.keyB, directory: directory, endpoint: ingestB.endpoint)
        _ = await other.client.flush()
        await shutDown(other.client)
        #expect(ingestB.receivedEvents.isEmpty, "\(ingestB.receivedEvents.map(\.name))")

        let ingestA = try LocalIngest(configuration: LocalIngest.Configuration(port: port, requiredKey: "sdl_pub_test0000000000"))
        defer { ingestA.stop() }
        let owner = TestClient(directory: directory, endpoint: ingestA.endpoint)
        _ = await owner.client.flush()
        await shutDown(owner.client)
        #expect(ingestA.receivedEvents.map(\.name).sorted() == ["app_crashed", "before_crash"], "\(ingestA.receivedEvents.map(\.name))")
    }

    @Test("an area with no owner recorded (an earlier version's) is sent by the next client of any key, as before", .tags(.sockets))
    func unrecordedAreaIsAnyones() async throws {
        let ingestB = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyB))
        let folder = TemporaryDirectory("sdl-keys")
        defer { ingestB.stop(); folder.remove() }
        await Self.leave(4, named: "old_version", by: Self.leavingEvents(key: Self.keyA, endpoint: URL(string: "http://127.0.0.1:9")!, in: folder))
        try FileManager.default.removeItem(atPath: folder.path + "/areas/a0/owner")

        let b = TestClient(key: Self.keyB, directory: folder, endpoint: ingestB.endpoint)
        _ = await b.client.flush()
        await shutDown(b.client)
        #expect(ingestB.receivedEvents.map(\.name) == Array(repeating: "old_version", count: 4))
        let owner = try String(contentsOfFile: folder.path + "/areas/a0/owner", encoding: .utf8)
        #expect(owner.contains(IngestKey.redacted(Self.keyB)), "the client that took the area recorded itself")
    }

    @Test("another key's opt-out deletes none of its leftovers; a client that cannot send records no owner", .tags(.sockets))
    func optOutAndUnsendableClients() async throws {
        let ingestA = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.keyA))
        let folder = TemporaryDirectory("sdl-keys")
        defer { ingestA.stop(); folder.remove() }
        await Self.leave(2, named: "kept", by: Self.leavingEvents(key: Self.keyA, endpoint: ingestA.endpoint, in: folder))

        let other = TestClient(key: Self.keyB, directory: folder)
        other.client.setEnabled(false)
        await other.drain()
        await shutDown(other.client)
        let malformed = TestClient(key: "not_a_key", directory: folder)
        malformed.client.track("unsendable")
        await malformed.drain()
        let malformedArea = await malformed.client.pipeline?.outbox.area
        await shutDown(malformed.client)
        let area = try #require(malformedArea)
        #expect(!FileManager.default.fileExists(atPath: area.ownerFile), "its events stay sendable by the first client that can send")

        let a = TestClient(key: Self.keyA, directory: folder, endpoint: ingestA.endpoint)
        _ = await a.client.flush()
        await shutDown(a.client)
        #expect(ingestA.receivedEvents.map(\.name).sorted() == ["kept", "kept", "unsendable"], "\(ingestA.receivedEvents.map(\.name))")
    }
}
