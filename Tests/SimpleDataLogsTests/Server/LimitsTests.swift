import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Servers: every limit is configurable, with the product's numbers as defaults", .stuckTestLimit, .skippedInFastLoop)
struct LimitsTests {
    @Test("the rule: values below their floor become the standard value, one line each; sensible values pass untouched")
    func validation() {
        let nonsense = SimpleDataLogsClient.Limits(outboxEvents: 0, outboxBytes: 1_000, outboxFiles: -3, backlogEvents: 0, backlogBytes: -1)
        let (limits, problems) = nonsense.validated()
        #expect(limits == .standard)
        #expect(problems.count == 5)
        #expect(problems.contains { $0.contains("limits.outboxBytes = 1000") && $0.contains("10000000") })
        #expect(SimpleDataLogsClient.Limits.server.validated().problems.isEmpty)
        #expect(SimpleDataLogsClient.Limits.server.validated().limits == .server)
        let standard = SimpleDataLogsClient.Limits.standard
        #expect(standard.outboxEvents == 10_000 && standard.outboxBytes == 10_000_000 && standard.outboxFiles == 500)
        #expect(standard.backlogEvents == 5_000)
    }

    @Test("the server profile: an hour's outage at 1,000 events/s fits the outbox; a 50,000-event burst fits the backlog")
    func serverProfile() {
        let configuration = SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_test0000000000")
        #expect(configuration.batchSize == 1_000 && configuration.maxConcurrentRequests == 4)
        let limits = configuration.limits
        let hour = 3_600 * 1_000
        #expect(limits.outboxEvents >= hour)
        #expect(limits.outboxFiles * configuration.batchSize >= hour)
        // 226 bytes per event on disk, measured (Benchmarks/README.md), with room to spare.
        #expect(limits.outboxBytes >= hour * 226)
        #expect(limits.backlogEvents >= 50_000)
    }

    @Test("nonsense at configure: one warning per value, and the client runs with the defaults")
    func nonsenseLogged() async throws {
        try await withTestClient(adjust: { $0.limits = SimpleDataLogsClient.Limits(outboxEvents: 0, backlogBytes: 0) }) { test throws in
            let warnings = test.log.lines.filter { $0.level == .warning && $0.message.contains("below its floor") }
            #expect(warnings.count == 2)
            for index in 0..<100 { test.client.track("e", properties: ["seq": .int(Int64(index))]) }
            #expect(try await test.flushedEvents().count == 100)
        }
    }

    @Test("a larger backlog: with the writer held, 12,000 tracked against backlogEvents 10,000 skip exactly 2,000 (the default skips 7,000)", .tags(.burst))
    func configuredBacklog() async throws {
        let gate = WriterGate(isOpen: false)
        await withTestClient(gate: gate, adjust: { $0.limits.backlogEvents = 10_000 }) { test in
            for index in 0..<12_000 { test.client.track("burst", properties: ["seq": .int(Int64(index))]) }
            #expect(test.client.counters.skippedBacklog == 2_000)
            gate.open()
            await test.drain()
            #expect(test.client.journalWatermark.eventsWritten == 10_000)
            #expect(test.client.counters.isBalanced)
        }
    }

    @Test("the backlog is bounded by bytes: 100 KB events fill a 1 MiB backlog after 10, whatever the event count allows")
    func backlogBytes() async throws {
        let gate = WriterGate(isOpen: false)
        try await withTestClient(gate: gate, adjust: { $0.limits.backlogEvents = 1_000; $0.limits.backlogBytes = 1 << 20 }) { test throws in
            let large = String(repeating: "x", count: 100_000)
            for _ in 0..<20 { test.client.track("large", properties: ["blob": .string(large)]) }
            let counters = test.client.counters
            #expect(counters.tracked == 20 && counters.skippedBacklog == 10, "\(counters)")
            #expect(test.log.lines.filter { $0.message.contains("waiting to be written") && $0.message.contains("1 MiB") }.count == 1)
            // Small events still fit by count once the large ones are written.
            gate.open()
            await test.drain()
            for index in 0..<500 { test.client.track("small", properties: ["seq": .int(Int64(index))]) }
            #expect(try await test.flushedEvents().count == 510)
            #expect(test.client.counters.skippedBacklog == 10 && test.client.counters.isBalanced)
        }
    }

    @Test("the pre-configure buffer: 3,500 tracked before configure with room for 3,000 drop the oldest 500")
    func preConfigureBuffer() async throws {
        let directory = TemporaryDirectory()
        let log = RecordingLogSink()
        var tuning = ClientTuning()
        tuning.startsUploader = false
        let client = SimpleDataLogsClient(
            clock: ManualClock(), wallClock: SettableWallClock(), logSink: log, tuning: tuning, environment: [:], eventsHeldBeforeConfigure: 3_000
        )
        for index in 0..<3_500 { client.track("early", properties: ["seq": .int(Int64(index))]) }
        #expect(client.counters.droppedBeforeConfigure == 500)
        client.configure(SimpleDataLogsClient.Configuration(ingestKey: "sdl_sec_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url))
        await client.journalEverythingTrackedSoFar()
        let events = try JournalReader.events(inOutbox: directory.path)
        #expect(try events.map { try $0.requiredInt("seq") } == Array(500..<3_500), "the newest 3,000, in order")
        #expect(log.lines.filter { $0.message.contains("More than 3000 events were tracked before configure") }.count == 1)
        await shutDown(client)
        directory.remove()

        let defaulted = SimpleDataLogsClient(clock: ManualClock(), wallClock: SettableWallClock(), logSink: log, tuning: tuning, environment: [:], eventsHeldBeforeConfigure: 0)
        for index in 0..<1_200 { defaulted.track("early", properties: ["seq": .int(Int64(index))]) }
        #expect(defaulted.counters.droppedBeforeConfigure == 200, "a nonsense value keeps the default, 1,000")
        #expect(log.lines.contains { $0.message.contains("eventsHeldBeforeConfigure = 0") })
        await shutDown(defaulted)
    }

    @Test("the outbox caps come from the configuration: 100 events kept of 300 while nothing is sent")
    func outboxCaps() async throws {
        try await withTestClient(adjust: {
            $0.batchSize = 10
            $0.limits.outboxEvents = 100
        }) { test in
            for index in 0..<300 { test.client.track("e", properties: ["seq": .int(Int64(index))]) }
            let events = try await test.flushedEvents()
            #expect(events.count <= 100 && events.count >= 90)
            let counters = test.client.counters
            #expect(counters.evictedByCaps == 300 - events.count && counters.isBalanced, "\(counters)")
            #expect(test.log.lines.filter { $0.message.contains("reached its cap (100 events") }.count == 1)
        }
    }
}

@Suite("Servers: a burst of server size", .stuckTestLimit, .tags(.sockets, .burst), .skippedInFastLoop)
struct ServerBurstTests {
    /// 1,000 handlers × 50 events; under a sanitizer (5 to 20 times slower, and the suite shares
    /// 2 cores) 200 × 50, which runs the same code paths for the race detector.
    static let handlers = isUnderSanitizer ? 200 : 1_000

    @Test("50,000 events from 1,000 concurrent handlers with the server profile: none skipped, none evicted, each delivered once with its own device id")
    func burst() async throws {
        try await withDelivery(key: "sdl_sec_test0000000000", adjust: { configuration in
            configuration = .server(ingestKey: configuration.ingestKey, endpoint: configuration.endpoint, storageDirectory: configuration.storageDirectory)
        }) { delivery in
            let client = delivery.client
            await withTaskGroup(of: Void.self) { group in
                for handler in 0..<Self.handlers {
                    group.addTask {
                        if handler.isMultiple(of: 2) {
                            for step in 0..<50 {
                                let seq = Int64(handler * 50 + step)
                                client.track("request_step", properties: ["seq": .int(seq), "handler": .int(Int64(handler))], deviceID: "device-\(handler)")
                            }
                        } else {
                            // The task-local id, tracked from child tasks of the handler.
                            await client.withDeviceID("device-\(handler)") {
                                await withTaskGroup(of: Void.self) { steps in
                                    for step in 0..<50 {
                                        steps.addTask {
                                            let seq = Int64(handler * 50 + step)
                                            client.track("request_step", properties: ["seq": .int(seq), "handler": .int(Int64(handler))])
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            await client.flush()
            let counters = client.counters
            #expect(counters.skippedBacklog == 0 && counters.evictedByCaps == 0, "\(counters)")
            let total = Self.handlers * 50
            #expect(counters.delivered == total && counters.isBalanced, "\(counters)")
            #expect(delivery.deliveredSeqs == Array(0..<total))
            #expect(delivery.ingest.rawEvents.count == total, "nothing sent twice")
            let mismatched = delivery.ingest.receivedEvents.filter { event in
                guard case .int(let handler)? = event.properties["handler"] else { return true }
                return event.deviceID != "device-\(handler)"
            }
            #expect(mismatched.isEmpty, "every event carries its own handler's device id")
        }
    }
}

@Suite("Servers: the server profile keeps its own numbers and carries no app state", .stuckTestLimit, .skippedInFastLoop)
struct ServerProfileTests {
    @Test("a nonsense value inside the server profile falls back to the profile's value, not the app's, with one line saying so")
    func nonsenseInServerProfile() {
        var limits = SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_test0000000000").limits
        limits.outboxFiles = 0
        limits.backlogEvents = -1
        let (validated, problems) = limits.validated()
        #expect(validated == .server, "\(validated)")
        #expect(problems.count == 2 && problems.allSatisfy { $0.contains("server profile") }, "\(problems)")
        #expect(problems.contains { $0.contains("limits.outboxFiles = 0") && $0.contains("5000") })
        var app = SimpleDataLogsClient.Limits.standard
        app.outboxFiles = 0
        #expect(app.validated().limits == .standard, "an app's limits still fall back to the app's numbers")
    }

    @Test("server profile events reach a real ingest without app_state or engaged_ms", .tags(.sockets))
    func noAppState() async throws {
        try await withDelivery(adjust: { configuration in
            let server = SimpleDataLogsClient.Configuration.server(ingestKey: configuration.ingestKey, endpoint: configuration.endpoint)
            configuration.activity = server.activity
            configuration.limits = server.limits
        }) { delivery in
            delivery.track(0..<3, name: "request_served")
            let result = try await withTimeLimit(waitingFor: "flush() to deliver") { await delivery.client.flush() }
            #expect(result.delivered == 3)
            let events = delivery.ingest.receivedEvents
            #expect(events.count == 3 && events.allSatisfy { $0.appState == nil && $0.engagedMilliseconds == nil }, "\(events)")
        }
    }
}
