import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Writes a journal file of framed records, one per event payload, into `area` of `root`.
@discardableResult
func plantJournal(in root: String, area: String = "a0", sequence: Int = 7, events: [String]) throws -> (path: String, bytes: [UInt8], recordStarts: [Int]) {
    let folder = root + "/areas/" + area
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var bytes: [UInt8] = []
    var starts: [Int] = []
    for event in events {
        starts.append(bytes.count)
        JournalRecord.append(payload: Array(event.utf8), to: &bytes)
    }
    let path = folder + "/" + JournalName.journal(sequence)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return (path, bytes, starts)
}

/// A minimal valid event payload with a sequence property.
func payload(_ seq: Int) -> String {
    #"{"event":"recovered","event_id":"00000000-0000-7000-8000-\#(String(format: "%012d", seq))","ts":1796205600000,"props":{"seq":\#(seq)}}"#
}

@Suite("Outbox: recovery at launch", .stuckTestLimit, .skippedInFastLoop)
struct OutboxRecoveryTests {
    @Test("a journal torn at every byte offset of its last record keeps every earlier record", .tags(.burst))
    func tornAtEveryOffset() async throws {
        let directory = TemporaryDirectory()
        let planted = try plantJournal(in: directory.path, events: (0..<3).map(payload))
        let lastStart = planted.recordStarts[2]
        for cut in lastStart...planted.bytes.count {
            directory.remove()
            let folder = directory.path + "/areas/a0"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(planted.bytes[0..<cut]).write(to: URL(fileURLWithPath: folder + "/" + JournalName.journal(7)))
            let test = TestClient(directory: directory)
            let events = try await test.flushedEvents()
            let expected = cut == planted.bytes.count ? [0, 1, 2] : [0, 1]
            #expect(try events.map { try $0.requiredInt("seq") } == expected, "cut at \(cut)")
            let counters = test.client.counters
            #expect(counters.recovered == expected.count && counters.damagedRecords == (cut > lastStart && cut < planted.bytes.count ? 1 : 0), "cut at \(cut)")
            #expect(counters.isBalanced)
            await shutDown(test.client)
        }
        directory.remove()
    }

    @Test("a middle record with a corrupted checksum, and one with a corrupted length, lose only themselves")
    func corruptedMiddleRecords() async throws {
        for corruption in ["checksum", "length", "marker", "payload"] {
            let directory = TemporaryDirectory()
            let planted = try plantJournal(in: directory.path, events: (0..<6).map(payload))
            var bytes = planted.bytes
            let record = planted.recordStarts[2]
            switch corruption {
            case "checksum": bytes[record + 8] ^= 0xFF
            case "length": bytes[record + 5] ^= 0x7F // a length that runs far past the end
            case "marker": bytes[record + 1] = 0x00
            default: bytes[record + 30] ^= 0x01
            }
            try Data(bytes).write(to: URL(fileURLWithPath: planted.path))
            try await withTestClient(directory: directory) { test in
                let seqs = try await test.flushedEvents().map { try $0.requiredInt("seq") }
                #expect(seqs == [0, 1, 3, 4, 5], "\(corruption)")
                #expect(test.client.counters.damagedRecords == 1)
                #expect(test.log.lines(containing: "Skipped damaged data").count == 1)
            }
        }
    }

    @Test("leftovers are sealed and counted as soon as configure runs, without a new event")
    func resentAtLaunch() async throws {
        let directory = TemporaryDirectory()
        try plantJournal(in: directory.path, events: (0..<10).map(payload))
        try await withTestClient(directory: directory) { test in
            let journal = test.client.pipeline!.outbox
            try await withTimeLimit(waitingFor: "the leftovers to be sealed at configure") { await journal.waitUntilSealed(atLeast: 1) }
            let batches = await journal.sealedBatches
            #expect(batches.map(\.eventCount) == [10])
            #expect(test.client.counters.recovered == 10 && test.client.counters.pendingOnDisk == 10)
        }
    }

    @Test("an unreadable batch is quarantined, never deleted, and the rest of the outbox is kept")
    func quarantine() async throws {
        let directory = TemporaryDirectory()
        let first = TestClient(directory: directory)
        for seq in 0..<100 { first.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await first.drain()
        await shutDown(first.client)
        let batches = directory.path + "/areas/a0/batches/"
        let names = try FileManager.default.contentsOfDirectory(atPath: batches).sorted()
        try #require(names.count == 2)
        // A folder planted where a batch file should be, and a garbage file name.
        let planted = JournalName.batch(sequence: 1, path: "r", id: UUID().uuidString.lowercased())
        try FileManager.default.createDirectory(atPath: batches + planted, withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: batches + "not-a-batch.batch"))

        try await withTestClient(directory: directory) { second in
            let journal = second.client.pipeline!.outbox
            await second.drain()
            #expect(await journal.sealedBatches.map(\.eventCount) == [50, 50])
            let quarantined = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/quarantine")
            #expect(quarantined.count == 2)
            #expect(second.log.lines(containing: "quarantine").count == 2)
        }
    }

    @Test("an injected EIO on reading a batch quarantines that file alone")
    func injectedReadError() async throws {
        let directory = TemporaryDirectory()
        let first = TestClient(directory: directory)
        for seq in 0..<100 { first.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await first.drain()
        await shutDown(first.client)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas/a0/batches").sorted()
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failReads(ofPathsContaining: names[0], with: EIO)
        try await withTestClient(faults: fileSystem.injection, directory: directory) { second throws in
            await second.drain()
            #expect(await second.client.pipeline!.outbox.sealedBatches.count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/quarantine").count == 1)
        }
    }
}
