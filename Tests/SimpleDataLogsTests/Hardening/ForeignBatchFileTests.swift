import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A batch file whose header names another batch than its file name (copied in under another
/// name by a backup tool or by hand, or two files joined) used to be adopted at launch under its
/// name's id; the uploader's check then refused it on every pass (it cannot tell it from a file
/// recycled under a read), so its events never left until the caps evicted them. Now launch
/// seals such a file's events again under fresh ids, and they are delivered.
@Suite("Hardening: a batch file holding another batch than its name says is delivered, not kept back", .stuckTestLimit, .tags(.sockets))
struct ForeignBatchFileTests {
    /// One event the ingest accepts, numbered `seq`.
    static func payload(_ seq: Int) -> [UInt8] {
        Array(#"{"event":"left","event_id":"\#(EventEncoder.lowercaseString(UUID()))","ts":1764669999001,"props":{"seq":\#(seq)}}"#.utf8)
    }

    static func write(_ bytes: [UInt8], named name: String, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    /// The `seq` of every event the ingest received, each time it was sent (not deduplicated).
    static func seqs(_ ingest: LocalIngest) -> [Int] {
        ingest.rawEvents.compactMap { if case .int(let seq)? = $0.properties["seq"] { Int(seq) } else { nil } }.sorted()
    }

    @Test("a copy under another name and two files joined under one name: the copy's events are already queued in the original, the joined file's are sealed again under fresh ids; all seven arrive, each once; no read is refused, no file is left")
    func copiedAndJoinedFilesAreDelivered() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // A dead area, as a process that died leaves it; launch adopts its files.
        let batches = OutboxLayout(root: directory.path).area("a0").batchesFolder
        let original = SealedBatch(id: UUID(), sequence: 1, path: "r", payloads: (1...3).map(Self.payload))
        try Self.write(BatchFile.encode(original), named: original.fileName, in: batches)
        // The same bytes under another batch's name.
        let copyName = SealedBatch(id: UUID(), sequence: 2, path: "r", payloads: []).fileName
        try Self.write(BatchFile.encode(original), named: copyName, in: batches)
        // Two batches joined into one file, under the first one's name: two headers.
        let first = SealedBatch(id: UUID(), sequence: 3, path: "r", payloads: (4...5).map(Self.payload))
        let second = SealedBatch(id: UUID(), sequence: 4, path: "r", payloads: (6...7).map(Self.payload))
        try Self.write(BatchFile.encode(first) + BatchFile.encode(second), named: first.fileName, in: batches)

        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let test = TestClient(directory: directory, endpoint: ingest.endpoint)
        for _ in 0..<4 where test.client.counters.pending > 0 || test.client.counters.recovered == 0 { await test.client.flush() }
        let counters = test.client.counters
        let mismatched = test.client.stageCounters.mismatchedReads
        let left = ((try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".batch") }
        await shutDown(test.client)

        #expect(Self.seqs(ingest) == Array(1...7), "every event arrived, each once (none under two batch ids)")
        #expect(mismatched == 0, "no read was refused as another batch's")
        #expect(counters.pending == 0 && counters.isBalanced, "\(counters)")
        #expect(left.isEmpty, "no batch file is left: \(left); \(test.log.lines.map(\.message))")
        #expect(test.log.lines(containing: "did not hold the batch its name gives").count == 2, "one warning per file: \(test.log.lines.map(\.message))")
        #expect(test.log.lines(containing: "3 were already queued in another file; the file is deleted").count == 1, "the copy")
        #expect(test.log.lines(containing: "4 of its events go out as 1 new batch under fresh ids; the file is deleted").count == 1, "the joined file")
    }
}
