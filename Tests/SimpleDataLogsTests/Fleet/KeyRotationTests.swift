import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 27, item 5: a rotated key at run time. Every test that sends uses a real ingest on
/// loopback that takes one key only (another gets 401, as at the edge), so an event sent with
/// the retired key shows as a 401, and one stranded shows as an event that never arrives.
@Suite("Fleet: the ingest key rotated at run time, and the keys a launch replaced", .stuckTestLimit, .skippedInFastLoop)
struct KeyRotationTests {
    static let oldKey = "sdl_sec_project_old_0000000000"
    static let newKey = "sdl_sec_project_new_1111111111"

    /// The area's `owner` file as read from disk.
    static func recordedOwner(in directory: TemporaryDirectory, area: String = "a0") throws -> AreaOwner {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/areas/\(area)/owner")))
        return try #require(AreaOwner.parse(bytes))
    }

    @Test("a 401 pause ends at once with the new key: everything unsent, the events before the call included, goes with it, on the manual clock that never moved", .tags(.sockets))
    func pauseEndsAtOnce() async throws {
        try await withDelivery(ingest: LocalIngest.Configuration(requiredKey: Self.newKey), key: Self.oldKey, adjust: { $0.logLevel = .info }) { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.track(0..<3)
            await delivery.client.flush()
            guard case .pausedForKey? = try await nextElement(of: reports, waitingFor: "a pause report after the 401") else {
                Issue.record("expected a 401 pause")
                return
            }
            #expect(delivery.ingest.receivedEvents.isEmpty)

            delivery.client.rotateIngestKey(to: "  \(Self.newKey)\n")
            delivery.track(3..<5)
            let result = await delivery.client.flush()
            #expect(delivery.deliveredSeqs == Array(0..<5), "every event, the 3 tracked under the old key too")
            #expect(result.remaining == 0 && delivery.client.counters.delivered == 5)
            let after401 = delivery.ingest.requests.drop { $0.status == 401 }
            #expect(!after401.isEmpty && after401.allSatisfy { $0.status == 202 && $0.header("Authorization") == "Bearer \(Self.newKey)" })
            #expect(delivery.test.log.lines(containing: "pause for 1 401 answer(s) ends").count == 1)
            #expect(delivery.test.log.lines.allSatisfy { !$0.message.contains(Self.newKey) && !$0.message.contains(Self.oldKey) }, "no key in full in a log line")
            let owner = try Self.recordedOwner(in: delivery.test.directory)
            #expect(owner.matches(AreaOwner(ingestKey: Self.newKey, eventsURL: delivery.ingest.endpoint.appending(path: "v1/events"))))
        }
    }

    @Test("after a rotation, a launch configured with the new key sends what the old run left; one with the old key leaves it", .tags(.sockets))
    func nextLaunchWithTheNewKey() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.newKey))
        let folder = TemporaryDirectory("sdl-rotation")
        defer { ingest.stop(); folder.remove() }
        let first = TestClient(key: Self.oldKey, directory: folder, endpoint: ingest.endpoint) { $0.keepsIntakeLog = true }
        let eventsURL = ingest.endpoint.appending(path: "v1/events")
        let logTags = { () -> [String?] in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).compactMap(IntakeLogFiles.parts(ofName:)).map(\.tag)
        }
        first.client.setOffline(true)
        first.client.track("before_rotation")
        await first.drain()
        #expect(logTags() == [AreaOwner(ingestKey: Self.oldKey, eventsURL: eventsURL).tag], "the intake log is the old key's")
        first.client.rotateIngestKey(to: Self.newKey)
        first.client.track("after_rotation")
        await first.drain()
        // What it holds goes with the new key now: a launch with the new key replays it.
        #expect(logTags() == [AreaOwner(ingestKey: Self.newKey, eventsURL: eventsURL).tag], "renamed for the new key")
        await shutDown(first.client)
        #expect(ingest.receivedEvents.isEmpty, "offline: everything stayed on disk")

        let withOldKey = TestClient(key: Self.oldKey, directory: folder, endpoint: ingest.endpoint)
        _ = await withOldKey.client.flush()
        await shutDown(withOldKey.client)
        #expect(ingest.receivedEvents.isEmpty && withOldKey.client.counters.recovered == 0, "the area is the new key's now")

        let withNewKey = TestClient(key: Self.newKey, directory: folder, endpoint: ingest.endpoint)
        let result = await withNewKey.client.flush()
        await shutDown(withNewKey.client)
        #expect(ingest.receivedEvents.map(\.name).sorted() == ["after_rotation", "before_rotation"])
        #expect(result.remaining == 0 && withNewKey.client.counters.recovered == 2)
    }

    @Test("previousIngestKeys: a restart with the new key sends what the old key left, and records the area as the new key's; without it the events wait", .tags(.sockets))
    func previousKeysAtLaunch() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.newKey))
        let folder = TemporaryDirectory("sdl-rotation")
        defer { ingest.stop(); folder.remove() }
        let old = TestClient(key: Self.oldKey, directory: folder, endpoint: ingest.endpoint)
        old.client.setOffline(true)
        for seq in 0..<4 { old.client.track("left_by_old_key", properties: ["seq": .int(Int64(seq))]) }
        await old.drain()
        await shutDown(old.client)

        let unaware = TestClient(key: Self.newKey, directory: folder, endpoint: ingest.endpoint) { $0.logLevel = .info }
        _ = await unaware.client.flush()
        await shutDown(unaware.client)
        #expect(ingest.receivedEvents.isEmpty, "without previousIngestKeys, the old key's events are not this key's to send")
        #expect(unaware.log.lines(containing: "Left 1 outbox area(s)").count == 1)

        let told = TestClient(key: Self.newKey, directory: folder, endpoint: ingest.endpoint) {
            $0.previousIngestKeys = ["sdl_pub_not_this_project", " \(Self.oldKey) ", "not a key"]
        }
        let result = await told.client.flush()
        await shutDown(told.client)
        #expect(ingest.receivedEvents.map(\.name) == Array(repeating: "left_by_old_key", count: 4))
        #expect(result.remaining == 0 && ingest.requests.allSatisfy { $0.status == 202 })
        for area in try FileManager.default.contentsOfDirectory(atPath: folder.path + "/areas") {
            let owner = try Self.recordedOwner(in: folder, area: area)
            #expect(owner.keyHint == IngestKey.redacted(Self.newKey), "area \(area) is recorded as the new key's")
        }
    }

    @Test("previousIngestKeys: an ended run's intake log tagged with the old key is replayed, with the new key, once; without it the log is left alone", .tags(.sockets))
    func previousKeysIntakeLog() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.newKey))
        let folder = TemporaryDirectory("sdl-rotation")
        defer { ingest.stop(); folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        // What a run of the old key left: its log, three events in it, nothing journaled.
        let oldOwner = AreaOwner(ingestKey: Self.oldKey, eventsURL: ingest.endpoint.appending(path: "v1/events"))
        let path = folder.path + "/" + IntakeLogFiles.name(id: UUID(), owner: oldOwner)
        do {
            // Its run ends with this scope: the mapping goes, and with it the log's lock.
            var failure: String?
            var writer = IntakeLogWriter(file: try #require(IntakeLogFile.create(at: path, slotCount: 256, firstSequence: 1, failure: &failure)), slotCount: 256)
            _ = writer.start()
            for seq in 0..<3 {
                let appended = writer.append(.event(.live(name: "logged_by_old_key", id: UUID(), timestamp: 1_700_000_000_000, properties: ["seq": .int(Int64(seq))])))
                #expect(appended)
            }
            writer.close()
        }

        let unaware = TestClient(key: Self.newKey, directory: folder, endpoint: ingest.endpoint)
        _ = await unaware.client.flush()
        await shutDown(unaware.client)
        #expect(ingest.receivedEvents.isEmpty && FileManager.default.fileExists(atPath: path), "another key's log is left alone")

        let told = TestClient(key: Self.newKey, directory: folder, endpoint: ingest.endpoint) { $0.previousIngestKeys = [Self.oldKey] }
        _ = await told.client.flush()
        await shutDown(told.client)
        #expect(ingest.receivedEvents.map(\.name) == Array(repeating: "logged_by_old_key", count: 3))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a malformed key, a client that sends nothing, or the same key: ignored, with a line for the first two; the client keeps sending with its key", .tags(.sockets))
    func refusedRotations() async throws {
        try await withDelivery(key: Self.oldKey) { delivery in
            delivery.client.rotateIngestKey(to: "sk_live_wrong")
            delivery.client.rotateIngestKey(to: Self.oldKey)
            delivery.track(0..<2)
            await delivery.client.flush()
            #expect(delivery.deliveredSeqs == [0, 1])
            #expect(delivery.ingest.requests.allSatisfy { $0.header("Authorization") == "Bearer \(Self.oldKey)" })
            #expect(delivery.test.log.lines(containing: "is not an ingest key").count == 1)
            #expect(delivery.test.log.lines(containing: "rotated").isEmpty)
        }
        let unconfigured = TestClient(configure: false)
        defer { unconfigured.directory.remove() }
        unconfigured.client.rotateIngestKey(to: Self.newKey)
        #expect(unconfigured.log.lines(containing: "this client sends nothing").count == 1)
        await shutDown(unconfigured.client)
    }
}

@Suite("Fleet: the key rotation's rules")
struct KeyRotationRuleTests {
    @Test("the verdict: trimmed, well formed, not the current key, and only for a client that sends")
    func verdicts() {
        #expect(KeyRotation.verdict(newKey: " sdl_sec_b\n", currentKey: "sdl_sec_a") == .rotate("sdl_sec_b"))
        #expect(KeyRotation.verdict(newKey: "sdl_sec_a", currentKey: "sdl_sec_a") == .unchanged)
        #expect(KeyRotation.verdict(newKey: "sdl_sec_", currentKey: "sdl_sec_a") == .malformed)
        #expect(KeyRotation.verdict(newKey: "Bearer sdl_sec_b", currentKey: "sdl_sec_a") == .malformed)
        #expect(KeyRotation.verdict(newKey: "sdl_sec_b", currentKey: nil) == .cannotSend)
    }

    @Test("an area recorded for a replaced key at the same endpoint is usable, and at another endpoint it is not")
    func formerClaims() {
        let url = URL(string: "https://edge.example.com/v1/events")!
        let mine = AreaOwner(ingestKey: "sdl_sec_new", eventsURL: url)
        let former = AreaOwner(ingestKey: "sdl_sec_old", eventsURL: url)
        let formerElsewhere = AreaOwner(ingestKey: "sdl_sec_old", eventsURL: URL(string: "https://staging.example.com/v1/events")!)
        #expect(AreaOwner.claim(ownerFile: former.fileContents, mine: mine, former: [former]) == .former)
        #expect(AreaOwner.Claim.former.isUsable)
        #expect(AreaOwner.claim(ownerFile: formerElsewhere.fileContents, mine: mine, former: [former]) == .another(formerElsewhere))
        #expect(AreaOwner.claim(ownerFile: former.fileContents, mine: mine) == .another(former), "a key not named stays another's")
        #expect(AreaOwner.claim(ownerFile: former.fileContents, mine: nil, former: [former]) == .another(former), "a client that cannot send takes nothing")
    }

    @Test("the uploader's machine: a rotation ends a 401 pause and keeps a backoff; a 401 to the retired key sends the batch again in the pass, a 401 to the new key pauses")
    func machine() {
        typealias Machine = UploaderStateMachine<ContinuousClock.Instant, SystemRandomNumberGenerator>
        var machine = Machine(maxConcurrentRequests: 1, backoffScale: 1, random: SystemRandomNumberGenerator())
        let now = ContinuousClock.now
        let batch = StoredBatch(id: UUID(), sequence: 1, path: "", eventCount: 2, byteCount: 100)
        machine.apply([.joined([batch])])
        let unauthorized = AnswerPolicy.Outcome.answered(UploadResponse(status: 401, body: Data(#"{"error":"unknown key"}"#.utf8)))
        let attempt = AnswerPolicy.Attempt(wasGzipped: false, eventCount: 2, bodyBytes: 100)

        let starts = machine.startsPass(after: .batchesAvailable, at: now)
        #expect(starts)
        _ = machine.beginPass()
        let first = machine.takeNext()
        #expect(first == batch)
        let sentBefore = machine.keyGeneration
        _ = machine.requestLeft()
        _ = machine.answered(unauthorized, attempt: attempt, batch: batch, sentAt: now, sentInRound: 0, now: now, elapsed: .zero, wallNow: Date(), keyGeneration: sentBefore)
        _ = machine.endPass()
        #expect(machine.state == .pausedForKey)
        let startsWhilePaused = machine.startsPass(after: .batchesAvailable, at: now)
        #expect(!startsWhilePaused)

        let lines = machine.keyRotated()
        #expect(lines.count == 1 && machine.state == .idle)
        let startsAfterRotation = machine.startsPass(after: .batchesAvailable, at: now)
        #expect(startsAfterRotation, "the pause ended at once, on a clock that did not move")

        // A request that left with the old key before the rotation, answered after it.
        _ = machine.beginPass()
        let second = machine.takeNext()
        #expect(second == batch)
        _ = machine.requestLeft()
        let stale = machine.answered(unauthorized, attempt: attempt, batch: batch, sentAt: now, sentInRound: 0, now: now, elapsed: .zero, wallNow: Date(), keyGeneration: sentBefore)
        #expect(stale.passGoesOn && machine.state != .pausedForKey)
        let again = machine.takeNext()
        #expect(again == batch, "sent again in the same pass, with the new key")
        _ = machine.requestLeft()
        let fresh = machine.answered(unauthorized, attempt: attempt, batch: batch, sentAt: now, sentInRound: 0, now: now, elapsed: .zero, wallNow: Date(), keyGeneration: machine.keyGeneration)
        #expect(!fresh.passGoesOn)
        _ = machine.endPass()
        #expect(machine.state == .pausedForKey, "the new key's own 401 pauses, as any 401 does")
    }
}
