import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// `reset()` for a logout and the install id the SDK keeps, through the public API and a real
/// local ingest: which ids every event arrives with, in intake order.
@Suite("Identity: reset() and the install id", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct ResetAndInstallIDTests {
    /// Flushes and returns what the ingest received, in order.
    static func flushed(_ delivery: Delivery) async throws -> [ReceivedEvent] {
        try await withTimeLimit(waitingFor: "a flush") { [client = delivery.client] in _ = await client.flush() }
        return delivery.ingest.receivedEvents
    }

    @Test("reset() in intake order: events before it carry the old device id and defaults, none after it; reset(deviceID:) names the next user")
    func resetInOrder() async throws {
        try await withDelivery { delivery in
            let client = delivery.client
            client.setDeviceID("alice")
            client.setDefaultProperties(["plan": "pro"])
            client.track("before", properties: ["n": 1])
            client.reset()
            client.track("anonymous")
            client.reset(deviceID: "bob")
            client.track("bob_event")
            let events = try await Self.flushed(delivery)
            #expect(events.map(\.name) == ["before", "anonymous", "bob_event"])
            #expect(events.map(\.deviceID) == ["alice", nil, "bob"])
            #expect(events[0].properties == ["n": 1, "plan": "pro"])
            #expect(events[1].properties.isEmpty && events[2].properties.isEmpty, "the defaults went with the logout")
        }
    }

    @Test("reset() ends the open session at the call: its session_end comes before the next event, which starts a new session for the new user")
    func resetEndsTheSession() async throws {
        try await withDelivery(adjust: { $0.autocapture = .sessions }) { delivery in
            let client = delivery.client
            client.setDeviceID("alice")
            client.track("a1")
            client.reset(deviceID: "bob")
            client.track("b1")
            let events = try await Self.flushed(delivery)
            #expect(events.map(\.name) == ["session_start", "a1", "session_end", "session_start", "b1"])
            let aliceSession = try #require(events[1].sessionID)
            #expect(events[0...2].allSatisfy { $0.deviceID == "alice" && $0.sessionID == aliceSession })
            #expect(events[3...4].allSatisfy { $0.deviceID == "bob" && $0.sessionID != aliceSession && $0.sessionID != nil })
        }
    }

    @Test("install id: events with no device id carry it, the same after a restart; an id the app sets wins; reset() replaces it, on disk too")
    func installID() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The first run is torn down by hand: the scoped helper would remove the folder.
        let earlier = try Delivery(directory: directory, adjust: { $0.usesInstallID = true })
        let first = try await { (delivery: Delivery) async throws -> String in
            defer { delivery.ingest.stop() }
            delivery.client.track("one")
            delivery.client.track("mine", properties: [:], deviceID: "explicit")
            delivery.client.setDeviceID("set-by-app")
            delivery.client.track("two")
            delivery.client.setDeviceID(nil)
            delivery.client.track("three")
            let events = try await Self.flushed(delivery)
            let id = try #require(events[0].deviceID)
            #expect(UUID(uuidString: id) != nil && id == id.lowercased())
            #expect(events.map(\.deviceID) == [id, "explicit", "set-by-app", id])
            let stored = try String(contentsOfFile: directory.path + "/install-id", encoding: .utf8)
            #expect(stored == id + "\n")
            await shutDown(delivery.client)
            return id
        }(earlier)
        let later = try Delivery(directory: directory, adjust: { $0.usesInstallID = true })
        let second = try await { (delivery: Delivery) async throws -> String in
            defer { delivery.ingest.stop() }
            delivery.client.track("after restart")
            delivery.client.reset()
            delivery.client.track("after reset")
            let events = try await Self.flushed(delivery)
            #expect(events[0].deviceID == first, "the same install id after a restart")
            let renewed = try #require(events[1].deviceID)
            #expect(renewed != first)
            #expect(try String(contentsOfFile: directory.path + "/install-id", encoding: .utf8) == renewed + "\n")
            await shutDown(delivery.client)
            return renewed
        }(later)
        try await withDelivery(directory: directory) { delivery in
            delivery.client.track("opted out of install ids")
            let events = try await Self.flushed(delivery)
            #expect(events.map(\.deviceID) == [nil], "off by default: the stored id (\(second)) is not used")
        }
    }

    @Test("configure(ingestKey:…, usesInstallID: true), the form the static façade forwards to: events carry the install id, the same on the next launch; left out, none")
    func installIDFromTheShortConfigure() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The README's app quick start turns the install id on with this form, so a newcomer's
        // events carry a device id without keeping one themselves. Each launch is a client shut
        // down by hand: the scoped helper would remove the folder, and the id with it.
        var ids: [String?] = []
        for launch in ["first_launch", "second_launch"] {
            let test = TestClient(configure: false, directory: directory)
            test.client.configure(ingestKey: "sdl_pub_test0000000000", storageDirectory: directory.url, usesInstallID: true)
            test.client.track(launch)
            let events = try await test.flushedEvents()
            await shutDown(test.client)
            #expect(events.last?.name == launch)
            ids.append(events.last?.deviceID)
        }
        let id = try #require(ids[0], "the short configure form sends no device id")
        #expect(UUID(uuidString: id) != nil)
        #expect(ids[1] == id, "the same install id on the next launch")
        #expect(try String(contentsOfFile: directory.path + "/install-id", encoding: .utf8) == id + "\n")
        try await withTestClient(configure: false) { test throws in
            test.client.configure(ingestKey: "sdl_pub_test0000000000", storageDirectory: test.directory.url)
            test.client.track("no_install_id")
            #expect(try await test.flushedEvents().map(\.deviceID) == [nil], "off by default")
        }
    }

    @Test("an install id the folder refuses: an id for this run, one warning, and events still flow")
    func installIDRefused() async throws {
        let refusing = FaultInjectingFileSystem()
        refusing.failRenames(ofPathsContaining: "install-id", with: EIO)
        var faults = FaultInjection()
        faults.fileSystem = refusing
        try await withDelivery(faults: faults, adjust: { $0.usesInstallID = true }) { delivery in
            delivery.client.track("e")
            let events = try await Self.flushed(delivery)
            #expect(events.count == 1 && events[0].deviceID != nil)
            #expect(delivery.test.log.lines(containing: "Could not store the install id").count == 1)
        }
    }
}
