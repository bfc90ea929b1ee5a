import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: calls after shutdown, a last chance during a 401 pause, concurrent 401s")
struct AfterShutdownTests {
    @Test("flush() after shutdown() returns at once instead of waiting forever")
    func flushAfterShutdown() async throws {
        let delivery = try Delivery()
        delivery.track(0..<3)
        await delivery.client.shutdown()
        let result = try await UploaderFixture.withTimeout(.seconds(30)) { await delivery.client.flush() }
        #expect(result.delivered == 0)
        delivery.ingest.stop()
        delivery.test.directory.remove()
    }

    @Test("a delivery-report subscription made after shutdown is finished at once")
    func reportsAfterShutdown() async throws {
        let delivery = try Delivery()
        await delivery.client.shutdown()
        let reports = delivery.client.deliveryReports()
        let count = try await UploaderFixture.withTimeout(.seconds(30)) {
            var count = 0
            for await _ in reports { count += 1 }
            return count
        }
        #expect(count == 0)
        delivery.ingest.stop()
        delivery.test.directory.remove()
    }

    @Test("flushAndDisable during a 401 pause makes its one try (a probe) before the opt-out deletes")
    func flushAndDisableDuringPause() async throws {
        let delivery = try Delivery()
        delivery.ingest.script([.status(401)])
        delivery.track(0..<3)
        await delivery.client.flush()
        #expect(delivery.ingest.summary.requests == 1, "paused by the 401")
        delivery.track(3..<5)
        await delivery.client.flushAndDisable(timeLimit: .seconds(10))
        #expect(delivery.deliveredSeqs == [0, 1, 2, 3, 4], "the key works now: the last chance delivered")
        #expect(delivery.client.counters.deletedByOptOut == 0)
        await delivery.tearDown()
    }

    @Test("three 401s from one round of concurrent requests count once: the first probe stays at 1 minute")
    func concurrentUnauthorized() {
        typealias Schedule = KeyProbeSchedule<ManualClock.Instant>
        func at(_ seconds: Int64) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(seconds)) }
        var schedule = Schedule()
        let first = schedule.recordUnauthorized(at: at(10), sentAt: at(9))
        let second = schedule.recordUnauthorized(at: at(10), sentAt: at(9))
        let third = schedule.recordUnauthorized(at: at(11), sentAt: at(9))
        #expect(first == .init(nextProbe: at(70), logsConfigurationError: true))
        #expect(second == .init(nextProbe: at(70), logsConfigurationError: false))
        #expect(third == .init(nextProbe: at(70), logsConfigurationError: false))
        #expect(schedule.consecutiveUnauthorized == 1)
        // The probe, sent after the pause began, counts: then every 10 minutes.
        let probe = schedule.recordUnauthorized(at: at(71), sentAt: at(70))
        #expect(probe == .init(nextProbe: at(671), logsConfigurationError: false))
    }

    @Test("end to end: 4 requests in flight all answered 401: one error line, and the probe goes at 1 minute")
    func concurrentUnauthorizedEndToEnd() async throws {
        let delivery = try Delivery(adjust: { $0.maxConcurrentRequests = 4 })
        delivery.ingest.script(Array(repeating: .status(401), count: 4))
        delivery.track(0..<200)
        await delivery.client.flush()
        #expect(delivery.ingest.summary.requests == 4)
        try #require(await delivery.test.clock.waitForSleepers(count: 1))
        delivery.test.clock.advance(by: .seconds(60))
        #expect(await delivery.ingest.waitForEvents(count: 200), "the probe at 1 minute found the key live")
        #expect(delivery.test.log.lines.filter { $0.level == .error && $0.message.contains("401") }.count == 1)
        await delivery.tearDown()
    }
}

@Suite("Hardening: log lines that say what happened, and nothing leaked by an ignored configure")
struct HonestLogTests {
    @Test("an outbox whose areas cannot be made (EROFS) says so, not \"held by another process\"")
    func readOnlyFolder() async throws {
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failCreatingDirectories(containing: "/areas/a", with: EROFS)
        var hooks = TestHooks()
        hooks.fileSystem = fileSystem
        let test = TestClient(hooks: hooks)
        test.client.track("e")
        await test.drain()
        let errors = test.log.lines.filter { $0.level == .error }.map(\.message)
        #expect(errors.contains { $0.contains("Could not open an outbox area") && $0.contains("Read-only file system") }, "\(errors)")
        #expect(!errors.contains { $0.contains("held by another process") })
        await test.tearDown()
    }

    @Test("configure called again 40 times: no session, thread or descriptor is left behind by the ignored calls")
    func ignoredConfigureLeaksNothing() async throws {
        let test = TestClient()
        func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
        test.configure()
        let before = openDescriptors()
        for _ in 0..<40 { test.configure() }
        let after = openDescriptors()
        // Other tests run in parallel in this process: allow their noise, not 40 sessions' worth.
        #expect(after - before < 20, "\(before) → \(after) descriptors")
        #expect(test.log.lines.filter { $0.message.contains("configure was called again") }.count == 41)
        await test.tearDown()
    }
}

@Suite("Hardening: a durable copy is never destroyed before its replacement is durable")
struct DurableCopyTests {
    @Test("rewriting the journal after a failed write never truncates it: the records under the watermark stay on disk while the disk fails")
    func rewriteNeverTruncates() async throws {
        let fileSystem = FaultInjectingFileSystem()
        var hooks = TestHooks()
        hooks.fileSystem = fileSystem
        let test = TestClient(hooks: hooks)
        for seq in 0..<10 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await test.drain()
        #expect(test.client.journalWatermark.eventsWritten == 10)
        #expect(try test.journaledEvents().count == 10)
        fileSystem.failWrites(with: EIO)
        test.client.track("e", properties: ["seq": 10])
        await test.drain()
        // The next write rewrites the whole open batch; it fails too.
        test.client.track("e", properties: ["seq": 11])
        await test.drain()
        let onDisk = try test.journaledEvents().compactMap { $0.props["seq"] as? Int }
        #expect(Array(onDisk.prefix(10)) == Array(0..<10), "the 10 written records survive a kill at this moment: \(onDisk)")
        // The disk is back: the rewrite replaces the journal whole, by a rename.
        fileSystem.clearAll()
        test.client.track("e", properties: ["seq": 12])
        let events = try await test.flushedEvents()
        #expect(events.compactMap { $0.props["seq"] as? Int } == Array(0..<13))
        #expect(!JournalReader.files(under: test.directory.path).contains { $0.contains("/tmp/") })
        await test.tearDown()
    }
}

@Suite("Hardening: a full disk never costs the only durable copy")
struct FullDiskCopyTests {
    @Test("a 413 split on a full disk is undone: the parent's file stays until both halves are files, then it splits and everything is delivered")
    func splitOnFullDisk() async throws {
        let fileSystem = FaultInjectingFileSystem()
        var hooks = TestHooks()
        hooks.fileSystem = fileSystem
        let delivery = try Delivery(ingest: LocalIngest.Configuration(maxBodyBytes: 2_000), hooks: hooks, adjust: { $0.compressesRequests = false })
        delivery.track(0..<16)
        await delivery.test.drain()
        fileSystem.failOpens(with: ENOSPC)
        await delivery.client.flush()
        let onDisk = try JournalReader.events(inOutbox: delivery.test.directory.path).compactMap { $0.props["seq"] as? Int }
        #expect(onDisk.sorted() == Array(0..<16), "the parent's file is still the durable copy: \(onDisk)")
        #expect(delivery.client.counters.pending == 16 && delivery.client.counters.isBalanced)
        fileSystem.clearAll()
        for _ in 0..<6 where delivery.client.counters.delivered < 16 { await delivery.client.flush() }
        #expect(delivery.deliveredSeqs == Array(0..<16))
        #expect(delivery.client.counters.isBalanced)
        await delivery.tearDown()
    }

    @Test("recovery on a full disk keeps the journal it could not turn into a batch file")
    func recoveryOnFullDisk() async throws {
        let directory = TemporaryDirectory()
        let earlier = TestClient(directory: directory)
        for seq in 0..<10 { earlier.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await earlier.drain()
        // What a kill after the journal's write leaves: keep the journal as it is now, and put
        // it back after the shutdown has sealed it.
        let journal = try #require(JournalReader.files(under: directory.path).first { $0.contains("journal-") })
        let bytes = try Data(contentsOf: directory.url.appendingPathComponent(journal))
        await earlier.client.shutdown()
        for file in JournalReader.files(under: directory.path) where file.hasSuffix(".batch") {
            try FileManager.default.removeItem(atPath: directory.path + "/" + file)
        }
        try bytes.write(to: directory.url.appendingPathComponent(journal))

        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failOpens(with: ENOSPC)
        var hooks = TestHooks()
        hooks.fileSystem = fileSystem
        let next = TestClient(hooks: hooks, directory: directory)
        await next.drain()
        #expect(next.client.counters.recovered == 10)
        let onDisk = try JournalReader.events(inOutbox: directory.path).compactMap { $0.props["seq"] as? Int }
        #expect(onDisk.sorted() == Array(0..<10), "the journal is still the durable copy: \(onDisk)")
        await next.client.shutdown()

        // The disk is back: the next launch seals it once, no event twice.
        let last = TestClient(directory: directory)
        await last.drain()
        let events = try last.journaledEvents().compactMap { $0.props["seq"] as? Int }
        #expect(events.sorted() == Array(0..<10))
        await last.tearDown()
    }
}

@Suite("Hardening: a hostile folder")
struct HostileFolderTests {
    @Test("a symlink planted as an area's lock or journal is never followed: the file it points to is untouched, and the events go to another area")
    func plantedSymlinks() async throws {
        let directory = TemporaryDirectory()
        let victim = TemporaryDirectory("victim")
        try FileManager.default.createDirectory(atPath: victim.path, withIntermediateDirectories: true)
        let precious = victim.path + "/precious.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: precious))
        try FileManager.default.createDirectory(atPath: directory.path + "/areas/a0", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/areas/a0/lock", withDestinationPath: precious)
        try FileManager.default.createDirectory(atPath: directory.path + "/areas/a1", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/areas/a1/journal-000000000001.log", withDestinationPath: precious)

        let test = TestClient(directory: directory)
        for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        let events = try await test.flushedEvents()
        #expect(events.count == 5)
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "precious", "never written through a symlink")
        await test.tearDown()
        victim.remove()
    }
}

@Suite("Hardening: one failing batch does not hold back the queue")
struct HeadOfLineTests {
    @Test("a batch that fails three times in a row is tried after the others: the batches behind it are delivered while it keeps failing")
    func poisonBatchDemoted() async throws {
        let delivery = try Delivery()
        delivery.ingest.script(Array(repeating: .status(500), count: 3) + [.normal(), .normal()] + Array(repeating: .status(500), count: 10))
        delivery.track(0..<150)
        await delivery.test.drain()
        // The oldest batch meets the three 500s (a flush ignores the backoff; at most 3 flushes).
        for _ in 0..<3 where delivery.ingest.summary.requests < 3 { await delivery.client.flush() }
        #expect(delivery.ingest.summary.requests == 3)
        await delivery.client.flush()
        #expect(delivery.deliveredSeqs == Array(50..<150), "the two batches behind it went first")
        #expect(delivery.client.counters.pendingOnDisk == 50, "it is kept, and still retried")
        #expect(delivery.test.log.lines.contains { $0.message.contains("failed 3 times in a row") })
        await delivery.tearDown()
    }

    @Test("a 2xx other than 202 is not delivery: the batch is kept and the log asks whether the endpoint is the ingest")
    func okIsNotAccepted() async throws {
        let delivery = try Delivery()
        delivery.ingest.script([.status(200)])
        delivery.track(0..<3)
        await delivery.test.drain()
        _ = await delivery.client.flush()
        #expect(delivery.test.log.lines.contains { $0.message.contains("HTTP 200, not 202") })
        for _ in 0..<2 where delivery.client.counters.delivered < 3 { await delivery.client.flush() }
        #expect(delivery.deliveredSeqs == [0, 1, 2])
        await delivery.tearDown()
    }
}

@Suite("Hardening: quarantine is not forever")
struct QuarantineRetryTests {
    @Test("a batch file quarantined after a transient read error (EIO) is restored at the next launch that can read it, and delivered")
    func transientReadError() async throws {
        let directory = await UnloadableBatchTests.leftOutbox(batches: 2)
        let first = try #require(UnloadableBatchTests.batchFiles(in: directory).sorted().first)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failReads(ofPathsContaining: (first as NSString).lastPathComponent, with: EIO)
        var hooks = TestHooks()
        hooks.fileSystem = fileSystem
        let flaky = TestClient(hooks: hooks, directory: directory)
        await flaky.drain()
        #expect(flaky.client.counters.recovered == 50, "one batch read, one quarantined")
        #expect(JournalReader.files(under: directory.path).filter { $0.hasPrefix("quarantine/") }.count == 1)
        await flaky.client.shutdown()

        let delivery = try Delivery(directory: directory)
        let result = await delivery.client.flush()
        #expect(result.delivered == 100 && delivery.deliveredSeqs == Array(0..<100))
        #expect(!JournalReader.files(under: directory.path).contains { $0.hasPrefix("quarantine/") })
        await delivery.tearDown()
    }
}

@Suite("Hardening: identity calls are bounded too")
struct IdentityCallBoundTests {
    @Test("100,000 setDeviceID and setDefaultProperties calls in a row hold one item each; the event after them carries the last of each")
    func hotLoopOfCalls() async throws {
        let test = TestClient(configure: false)
        for index in 0..<100_000 {
            test.client.setDeviceID("device-\(index)")
            test.client.setDefaultProperties(["round": .int(Int64(index))])
        }
        #expect(test.client.intake.queuedItemCount <= 2 * 2, "coalesced, not 200,000 items")
        test.client.setEnabled(false)
        test.client.setEnabled(true)
        #expect(test.client.intake.queuedItemCount == 4, "opt-out and opt-in are never merged")
        test.client.track("after")
        test.configure()
        let events = try await test.flushedEvents()
        #expect(events.count == 1)
        #expect(events.first?["device_id"] as? String == "device-99999")
        #expect(events.first?.props["round"] as? Int == 99_999)
        await test.tearDown()
    }
}

@Suite("Hardening: the watermark promises only what is on disk")
struct WatermarkTruthTests {
    @Test("writes that fail do not move the watermark; the rewrite that puts them on disk does")
    func failedWrites() async throws {
        let fileSystem = FaultInjectingFileSystem()
        var hooks = TestHooks()
        hooks.fileSystem = fileSystem
        let test = TestClient(hooks: hooks)
        for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await test.drain()
        #expect(test.client.journalWatermark.eventsWritten == 5)
        fileSystem.failWrites(with: ENOSPC)
        for seq in 5..<8 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await test.drain()
        #expect(test.client.journalWatermark.eventsWritten == 5, "three events only in memory: not promised")
        fileSystem.clearAll()
        test.client.track("e", properties: ["seq": 8])
        await test.drain()
        #expect(test.client.journalWatermark.eventsWritten == 9, "the rewrite put all of them on disk")
        #expect(try test.journaledEvents().count == 9)
        await test.tearDown()
    }

    @Test("with no storage folder (memory only) the watermark never moves: nothing survives kill -9")
    func memoryOnly() async throws {
        let test = TestClient(environment: ["HOME": ""], adjust: { $0.storageDirectory = nil })
        for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await test.drain()
        #expect(test.client.journalWatermark.eventsWritten == 0)
        #expect(test.client.counters.pending == 5)
        await test.tearDown()
    }
}
