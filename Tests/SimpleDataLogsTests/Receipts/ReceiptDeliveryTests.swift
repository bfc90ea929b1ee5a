import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Completeness receipts end to end: real files, real HTTP to a `LocalIngest`, the manual clock.
@Suite("Completeness receipts", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct ReceiptDeliveryTests {
    /// Receipts as a configuration has them by default (the test clients turn them off).
    static let daily: @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { $0.completenessReceipts = .daily }

    /// The newest intact ledger in an area's two slots (``ReceiptLedger/fileNames``).
    static func newestLedger(inArea folder: String) -> ReceiptLedger? {
        ReceiptLedger.newest(of: ReceiptLedger.fileNames.map { FileManager.default.contents(atPath: folder + "/" + $0).map(Array.init) })?.ledger
    }

    /// Whether either of an area's ledger slots is on disk.
    static func hasLedger(inArea folder: String) -> Bool {
        ReceiptLedger.fileNames.contains { FileManager.default.fileExists(atPath: folder + "/" + $0) }
    }

    /// The receipts the ingest counted (each event id once), oldest first.
    static func receipts(_ ingest: LocalIngest) -> [ReceivedEvent] {
        ingest.receivedEvents.filter { $0.name == PendingReceipt.eventName }.sorted { $0.timestamp < $1.timestamp || ($0.timestamp == $1.timestamp && int($0, "receipt_seq") < int($1, "receipt_seq")) }
    }

    static func int(_ event: ReceivedEvent, _ name: String) -> Int {
        if case .int(let value)? = event.properties[name] { Int(value) } else { -1 }
    }

    static let oneDay: Duration = .seconds(86_400)

    @Test("1,000 events tracked, 100 evicted by the caps, 10 rejected by the ingest: the next receipt says exactly that")
    func acceptance() async throws {
        // The ingest's clock runs 100 days ahead: events back-dated 3,600 days (kept by the SDK)
        // are outside its 3,652-day window there, and only those are rejected.
        let ahead = SettableWallClock(SettableWallClock().now().addingTimeInterval(100 * 86_400))
        try await withDelivery(ingest: LocalIngest.Configuration(wallClock: ahead), adjust: { $0.limits = SimpleDataLogsClient.Limits(outboxEvents: 900); $0.completenessReceipts = .daily }) { delivery in
            let client = delivery.client
            client.setDefaultProperties(["app_version": "2.3.1"])
            // The edge is down: the uploader backs off (on the manual clock, which stays put), and
            // nothing is delivered while the outbox fills past its cap.
            delivery.ingest.script([.status(503)])
            delivery.track(0..<50)
            #expect(await delivery.ingest.waitForRequests(count: 1))
            delivery.track(50..<990)
            let old = delivery.test.wallClock.now().addingTimeInterval(-3_600 * 86_400)
            for seq in 990..<1_000 { client.track("e", properties: ["seq": .int(Int64(seq))], at: old) }
            await delivery.test.drain()
            #expect(client.counters.evictedByCaps == 100, "\(client.counters)")
            // The flush ignores the backoff.
            await client.flush()
            await client.flush()
            #expect(client.counters.delivered == 890 && client.counters.rejectedByIngest == 10, "\(client.counters)")
            #expect(Self.receipts(delivery.ingest).isEmpty, "none before a day has passed")

            delivery.test.clock.advance(by: Self.oneDay)
            #expect(await delivery.ingest.waitForEvents(count: 891))
            await client.flush()
            let receipt = try #require(Self.receipts(delivery.ingest).first)
            #expect(Self.int(receipt, "delivered") == 890 && Self.int(receipt, "rejected") == 10 && Self.int(receipt, "evicted") == 100)
            #expect(Self.int(receipt, "settled") == 1_000 && Self.int(receipt, "receipt_seq") == 1)
            for reason in ["too_large", "lost_from_disk", "skipped_backlog", "invalid", "dropped_by_middleware", "dropped_before_configure", "dropped_at_shutdown", "set_aside", "pending"] {
                #expect(Self.int(receipt, reason) == 0, "\(reason)")
            }
            #expect(receipt.properties["sdk_version"] == .string(SimpleDataLogsVersion.current) && receipt.properties["app_version"] == "2.3.1")
            #expect(receipt.deviceID == nil && receipt.sessionID == nil)
            #expect(client.counters.isBalanced, "the receipt is counted like every event: \(client.counters)")
        }
    }

    @Test("daily on the manual clock: none a second before the day, one at the day, the next a day later counting the first's delivery")
    func daily() async throws {
        try await withDelivery(adjust: Self.daily) { delivery in
            delivery.track(0..<5)
            delivery.client.track("")
            await delivery.client.flush()
            delivery.test.clock.advance(by: .seconds(86_399))
            await delivery.client.flush()
            #expect(delivery.ingest.receivedEvents.count == 5 && Self.receipts(delivery.ingest).isEmpty)
            delivery.test.clock.advance(by: .seconds(1))
            #expect(await delivery.ingest.waitForEvents(count: 6))
            // The answer applied before the clock moves on (a day later it would be a timeout).
            await delivery.client.flush()
            delivery.test.clock.advance(by: Self.oneDay)
            #expect(await delivery.ingest.waitForEvents(count: 7))
            let receipts = Self.receipts(delivery.ingest)
            try #require(receipts.count == 2)
            #expect(Self.int(receipts[0], "receipt_seq") == 1 && Self.int(receipts[0], "delivered") == 5)
            #expect(Self.int(receipts[0], "invalid") == 1 && Self.int(receipts[0], "settled") == 6, "counted in memory, carried by the next stored settlement")
            #expect(Self.int(receipts[1], "receipt_seq") == 2 && Self.int(receipts[1], "delivered") == 1, "the first receipt's own fate")
            #expect(receipts[0].properties["receipt_ledger"] == receipts[1].properties["receipt_ledger"])
            #expect(Set(receipts.map(\.eventID)).count == 2)
        }
    }

    @Test("across launches: a launch less than a day after the last receipt makes none; a launch a day after makes one at once")
    func acrossLaunches() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        for seq in 0..<3 { first.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await first.client.flush()
        await shutDown(first.client)

        let soon = TestClient(configure: false, directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        soon.wallClock.advance(by: 86_399)
        soon.configure()
        await soon.client.flush()
        await shutDown(soon.client)
        #expect(Self.receipts(ingest).isEmpty)

        let later = TestClient(configure: false, directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        later.wallClock.advance(by: 86_400)
        later.configure()
        await later.client.flush()
        #expect(await ingest.waitForEvents(count: 4))
        let receipt = try #require(Self.receipts(ingest).first)
        #expect(Self.int(receipt, "delivered") == 3 && Self.int(receipt, "receipt_seq") == 1)
        #expect(receipt.timestamp == later.wallClock.nowMilliseconds)
        await shutDown(later.client)
    }

    @Test("servers: a receipt at shutdown, sent by shutdown's last send, past the app's middleware steps; the server profile asks for it, the default does not")
    func atShutdown() async throws {
        #expect(SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_x").completenessReceipts == .dailyAndAtShutdown)
        #expect(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_x").completenessReceipts == .daily)
        // A step that keeps only the app's own event names: the receipt passes no step.
        let onlyE = EventMiddleware("only e") { event in event.name == "e" ? .keep : .drop }
        try await withDelivery(adjust: { $0.completenessReceipts = .dailyAndAtShutdown; $0.middleware = [onlyE] }) { delivery in
            delivery.track(0..<20)
            delivery.client.track("other")
            await delivery.client.flush()
            await shutDown(delivery.client)
            #expect(await delivery.ingest.waitForEvents(count: 21))
            let receipt = try #require(Self.receipts(delivery.ingest).first)
            #expect(Self.int(receipt, "delivered") == 20 && Self.int(receipt, "dropped_by_middleware") == 1 && Self.int(receipt, "settled") == 21)
        }
        try await withDelivery(adjust: Self.daily) { delivery in
            delivery.track(0..<3)
            await delivery.client.flush()
            await shutDown(delivery.client)
            #expect(delivery.ingest.receivedEvents.count == 3 && Self.receipts(delivery.ingest).isEmpty)
        }
    }

    @Test("the opt-out wipes the ledger: no receipt while collection is off, and the next one counts only what came after")
    func optOut() async throws {
        try await withDelivery(adjust: Self.daily) { delivery in
            let client = delivery.client
            delivery.track(0..<10)
            await client.flush()
            let area = delivery.test.directory.path + "/areas/a0"
            let before = try #require(Self.newestLedger(inArea: area), "the delivery was counted in the ledger")
            #expect(before.counts.delivered == 10)
            client.setEnabled(false)
            await delivery.test.drain()
            #expect(!Self.hasLedger(inArea: area))
            delivery.test.clock.advance(by: Self.oneDay)
            await client.flush()
            #expect(delivery.ingest.receivedEvents.count == 10, "no receipt while collection is off")
            client.setEnabled(true)
            delivery.track(10..<12)
            await client.flush()
            delivery.test.clock.advance(by: Self.oneDay)
            #expect(await delivery.ingest.waitForEvents(count: 13))
            let receipt = try #require(Self.receipts(delivery.ingest).first)
            #expect(Self.int(receipt, "delivered") == 2 && Self.int(receipt, "receipt_seq") == 1)
            #expect(receipt.properties["receipt_ledger"] != .string(EventEncoder.lowercaseString(before.id)), "a new ledger")
        }
    }

    @Test("off: no ledger file and no receipt")
    func off() async throws {
        try await withDelivery(adjust: { $0.completenessReceipts = .off }) { delivery in
            delivery.track(0..<5)
            await delivery.client.flush()
            delivery.test.clock.advance(by: Self.oneDay)
            await delivery.client.flush()
            #expect(delivery.ingest.receivedEvents.count == 5)
            #expect(!Self.hasLedger(inArea: delivery.test.directory.path + "/areas/a0"))
        }
    }

    @Test("the app's version: an event's app_version property, else the bundle's; a damaged ledger gives one warning and a new one")
    func appVersionAndDamagedLedger() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var tuning = ClientTuning()
        tuning.contextSource = .fixed(ContextFacts(appVersion: "9.8.7"))
        let first = TestClient(tuning: tuning, directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        first.client.track("e")
        await first.client.flush()
        first.clock.advance(by: Self.oneDay)
        #expect(await ingest.waitForEvents(count: 2))
        await first.client.flush()
        await shutDown(first.client)
        let receipt = try #require(Self.receipts(ingest).first)
        #expect(receipt.properties["app_version"] == "9.8.7")

        for name in ReceiptLedger.fileNames {
            try Data("not a ledger".utf8).write(to: URL(fileURLWithPath: directory.path + "/areas/a0/" + name))
        }
        let second = TestClient(tuning: tuning, directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        second.client.track("e", properties: ["app_version": "2.3.1"])
        await second.client.flush()
        second.clock.advance(by: Self.oneDay)
        #expect(await ingest.waitForEvents(count: 4))
        await second.client.flush()
        #expect(second.log.lines(containing: "receipts ledger").count == 1)
        let next = try #require(Self.receipts(ingest).first { $0.eventID != receipt.eventID })
        #expect(next.properties["app_version"] == "2.3.1" && Self.int(next, "receipt_seq") == 1 && Self.int(next, "delivered") == 1)
        #expect(next.properties["receipt_ledger"] != receipt.properties["receipt_ledger"])
        await shutDown(second.client)
    }

    @Test("adoption: a dead area's ledger becomes a receipt of its own, under its own ledger id; its delivery is counted in the adopter's next one")
    func adoption() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The second starts once the first has launched: two launches at once may each lock the
        // other's fresh, empty area to see whether it is dead, and one then numbers its own a2.
        let first = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        for seq in 0..<3 { first.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await first.client.flush()
        let second = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        for seq in 3..<10 { second.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await second.client.flush()
        #expect(ingest.receivedEvents.count == 10)
        await shutDown(first.client)
        await shutDown(second.client)
        let areas = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas").sorted()
        try #require(areas == ["a0", "a1"])
        let secondsLedger = try #require(Self.newestLedger(inArea: directory.path + "/areas/a1"))

        let adopter = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: Self.daily)
        await adopter.client.flush()
        #expect(await ingest.waitForEvents(count: 11))
        let absorbed = try #require(Self.receipts(ingest).first)
        #expect(absorbed.properties["receipt_ledger"] == .string(EventEncoder.lowercaseString(secondsLedger.id)))
        #expect(Self.int(absorbed, "receipt_seq") == 1 && Self.int(absorbed, "delivered") == secondsLedger.counts.delivered)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/areas/a1"), "the dead area is gone, its ledger with it")
        adopter.clock.advance(by: Self.oneDay)
        #expect(await ingest.waitForEvents(count: 12))
        await adopter.client.flush()
        let own = try #require(Self.receipts(ingest).first { $0.eventID != absorbed.eventID })
        let total = Self.int(absorbed, "delivered") + Self.int(own, "delivered")
        #expect(total == 11, "10 events and the absorbed receipt, each counted once")
        await shutDown(adopter.client)
    }

    @Test("a ledger the disk refuses: one error line, the batches are still deleted after their 202 (never sent twice), and the counts reach the next receipt once the disk takes it")
    func refusedLedger() async throws {
        let files = FaultInjectingFileSystem()
        files.failOpens(ofPathsContaining: "receipts.ledger", with: ENOSPC) // both slots
        try await withDelivery(faults: files.injection, adjust: Self.daily) { delivery in
            delivery.track(0..<60)
            await delivery.client.flush()
            delivery.track(60..<70)
            await delivery.client.flush()
            #expect(try JournalReader.events(inOutbox: delivery.test.directory.path).isEmpty, "deleted after the 202s")
            #expect(delivery.test.log.lines(containing: "receipts ledger").count == 1)
            #expect(!Self.hasLedger(inArea: delivery.test.directory.path + "/areas/a0"))
            files.clearAll()
            delivery.track(70..<75)
            await delivery.client.flush()
            #expect(Self.hasLedger(inArea: delivery.test.directory.path + "/areas/a0"))
            delivery.test.clock.advance(by: Self.oneDay)
            #expect(await delivery.ingest.waitForEvents(count: 76))
            #expect(delivery.ingest.rawEvents.count == 76, "nothing sent twice")
            let receipt = try #require(Self.receipts(delivery.ingest).first)
            #expect(Self.int(receipt, "delivered") == 75)
        }
    }
}
