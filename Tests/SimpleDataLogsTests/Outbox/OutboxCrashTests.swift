import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Outbox: real processes killed with SIGKILL", .stuckTestLimit, .skippedInFastLoop)
struct OutboxCrashTests {
    @Test("killed at each step inside the sealing code, restarted: every event is there exactly once", .tags(.processes), arguments: SealCrashPoint.allCases)
    func crashInsideSealing(point: SealCrashPoint) async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        // 60 events in batches of 50: the first batch is sealed while the journal thread goes on
        // writing the next ten into a second journal, so a kill can leave two journals behind.
        let ending = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["seal", path, point.rawValue, "60"])
            return child.wait()
        }
        #expect(ending.reason == .uncaughtSignal && ending.status == SIGKILL, "the child died inside the seal at \(point)")

        try await withTestClient(directory: directory) { restarted in
            let events = try await restarted.flushedEvents()
            let seqs = try events.map { try $0.requiredInt("seq") }
            #expect(Set(events.map { $0.eventID }).count == seqs.count, "no event in two files")
            #expect(!seqs.isEmpty && seqs.sorted() == Array(0..<seqs.count), "\(point): a prefix, no gap: \(seqs)")
            if point != .afterJournalWrite {
                // Killed while the sealer worked on the first batch: all 50 were written before it
                // was handed over; of the next ten, those written before the kill survive.
                #expect(seqs.count >= 50, "\(point): \(seqs.count) events")
                #expect(restarted.client.counters.recovered == seqs.count)
            }
            let tmp = try FileManager.default.contentsOfDirectory(atPath: path + "/areas/a0/tmp")
            #expect(tmp.isEmpty, "temporary files are cleaned up")
        }
    }

    @Test("a child tracking 1,000+ events is killed mid-stream; every event at or below its last watermark survives, once", .tags(.processes, .burst))
    func killedWhileTracking() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        let watermark: Int = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["stream", path, "1000000"])
            var last = 0
            while let line = child.readLine(until: { $0.hasPrefix("watermark ") }) {
                last = Int(line.dropFirst("watermark ".count)) ?? last
                if last >= 1_500 { break }
            }
            child.kill()
            return last
        }
        #expect(watermark >= 1_000)
        try await withTestClient(directory: directory) { restarted in
            let seqs = try await restarted.flushedEvents().map { try $0.requiredInt("seq") }
            #expect(Set(seqs).count == seqs.count, "no duplicates")
            let survivors = Set(seqs)
            let lost = (0..<watermark).filter { !survivors.contains($0) }
            #expect(lost.isEmpty, "lost at or below the watermark: \(lost.prefix(10))")
            #expect(seqs.sorted() == Array(0..<seqs.count), "a prefix: nothing above a gap")
        }
    }

    @Test("a child delivering to a local ingest is killed mid-stream; after a restart every event at or below its watermark is delivered, each under one event_id", .tags(.processes, .sockets, .burst))
    func killedWhileDelivering() async throws {
        let ingest = try LocalIngest()
        let directory = TemporaryDirectory()
        let path = directory.path
        let endpoint = ingest.endpoint.absoluteString
        let watermark: Int = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["stream", path, "1000000"], environment: ["SDL_TEST_ENDPOINT": endpoint])
            var last = 0
            while let line = child.readLine(until: { $0.hasPrefix("watermark ") }) {
                last = Int(line.dropFirst("watermark ".count)) ?? last
                if last >= 2_000 { break }
            }
            child.kill()
            return last
        }
        #expect(watermark >= 1_000)
        try await withTestClient(directory: directory, endpoint: ingest.endpoint) { restarted throws in
            await restarted.client.flush()
            await restarted.client.flush()
            var idsBySeq: [Int: Set<String>] = [:]
            for event in ingest.rawEvents {
                if case .int(let seq)? = event.properties["seq"] { idsBySeq[Int(seq), default: []].insert(event.eventID) }
            }
            let lost = (0..<watermark).filter { idsBySeq[$0] == nil }
            #expect(lost.isEmpty, "lost at or below the watermark: \(lost.prefix(10))")
            #expect(idsBySeq.values.filter { $0.count > 1 }.isEmpty, "no sequence number under two event_ids")
            #expect(try JournalReader.events(inOutbox: path).isEmpty, "nothing left on disk after the final flush")
        }
        ingest.stop()
    }
}

@Suite("Outbox: areas and locks", .stuckTestLimit, .skippedInFastLoop)
struct OutboxAreaTests {
    @Test("two clients on one folder in one process use separate areas and never cross")
    func twoClientsOneProcess() async throws {
        let directory = TemporaryDirectory()
        // Kept explicit: both clients share the folder and must shut down before it is removed,
        // which nested scopes (the inner one removing the folder first) would not do.
        let first = TestClient(directory: directory)
        let second = TestClient(directory: directory)
        for seq in 0..<120 { first.client.track("first", properties: ["seq": .int(Int64(seq))]) }
        for seq in 0..<80 { second.client.track("second", properties: ["seq": .int(Int64(seq))]) }
        await first.drain()
        await second.drain()
        // Two areas; not necessarily a0 and a1: two launches at once may each lock the other's
        // fresh, empty area to see whether it is dead, and one then numbers its own a2.
        let areas = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas").sorted()
        #expect(areas.count == 2, "\(areas)")
        let a0 = try JournalReader.events(inOutbox: directory.path).filter { $0.name == "first" }
        #expect(a0.count == 120)
        let firstSealed = await first.client.pipeline!.outbox.sealedBatches.map(\.eventCount)
        let secondSealed = await second.client.pipeline!.outbox.sealedBatches.map(\.eventCount)
        #expect(firstSealed == [50, 50] && secondSealed == [50])
        await shutDown(first.client)
        await shutDown(second.client)
        directory.remove()
    }

    @Test("a second process on the same folder takes another area while the first holds its lock", .tags(.processes))
    func twoProcesses() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        try await withTestClient(directory: directory) { holder in
            holder.client.track("parent")
            await holder.drain()
            let ready = try await onOwnThread {
                let child = try ChildProcess("OutboxCrashChild", ["hold", path, "30"])
                defer { child.kill() }
                return child.readLine(until: { $0 == "ready" }) != nil
            }
            #expect(ready)
            let areas = try FileManager.default.contentsOfDirectory(atPath: path + "/areas").sorted()
            #expect(areas == ["a0", "a1"])
            let childEvents = try JournalReader.events(inOutbox: path).filter { $0.name == "held" }
            #expect(childEvents.count == 30)
        }
    }

    @Test("the areas of dead processes are adopted: their events join this client's outbox, and their folders go", .tags(.processes))
    func adoption() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        // The holder keeps a0 for the whole test; the heir shares its folder, so it is only shut
        // down, and the holder's scope removes the folder last.
        try await withTestClient(directory: directory) { holder in
            holder.client.track("parent")
            await holder.drain()
            // Two children take a1 and a2 at once, then both die.
            try await onOwnThread {
                let first = try ChildProcess("OutboxCrashChild", ["hold", path, "70"])
                _ = first.readLine(until: { $0 == "ready" })
                let second = try ChildProcess("OutboxCrashChild", ["hold", path, "40"])
                _ = second.readLine(until: { $0 == "ready" })
                first.kill()
                second.kill()
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/areas").sorted() == ["a0", "a1", "a2"])
            let heir = TestClient(directory: directory)
            await heir.drain()
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/areas").sorted() == ["a0", "a1"], "a2 adopted and removed")
            #expect(heir.client.counters.recovered == 110)
            let held = try JournalReader.events(inOutbox: path).filter { $0.name == "held" }
            #expect(held.count == 110)
            #expect(Set(held.map { $0.eventID }).count == 110)
            await shutDown(heir.client)
        }
    }
}
