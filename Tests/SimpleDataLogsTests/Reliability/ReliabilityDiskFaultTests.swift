import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A fault on disk: an outbox an earlier run left, damaged or flooded, and a launch that meets
/// a failing disk. What the SDK must account for afterwards.
struct DiskFault: Sendable, CustomStringConvertible {
    var name: String
    /// The earlier run's batch size and the events it leaves.
    var earlierBatchSize = 50
    var earlierEvents = 150
    /// What the earlier run's edge answers (a 400 sets batches aside).
    var earlierScript: [ScriptedAnswer] = []
    /// Changes to the folder between the runs.
    var damage: @Sendable (_ root: String) throws -> Void = { _ in }
    /// The faulty launch's ingest, configuration, and disk fault (cleared after its first flush).
    var ingest = LocalIngest.Configuration()
    var adjust: @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in }
    var inject: @Sendable (FaultInjectingFileSystem, _ root: String) -> Void = { _, _ in }
    /// Events the faulty launch tracks itself; all of them must arrive.
    var newEvents = 20
    /// Events that may end up dropped (evicted by the caps), at most.
    var allowedDrops = 0
    var description: String { name }
}

/// Leaves a journal the way `kill -9` after its write would: the shutdown sealed it, so the
/// batch files are removed and the journal's bytes put back.
private func unsealedJournal(_ root: String) throws {
    let batches = JournalReader.files(under: root).filter { $0.hasSuffix(".batch") }
    guard let newest = batches.sorted().last else { return }
    let name = (newest as NSString).lastPathComponent
    guard let parts = JournalName.batchParts(name) else { return }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/" + newest))
    try FileManager.default.removeItem(atPath: root + "/" + newest)
    let area = ((newest as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    try bytes.write(to: URL(fileURLWithPath: root + "/" + area + "/" + JournalName.journal(parts.sequence)))
}

@Suite("Reliability: a matrix of faults on disk", .stuckTestLimit, .tags(.sockets, .burst), .skippedInFastLoop)
struct ReliabilityDiskFaultTests {
    static let faults: [DiskFault] = [
        DiskFault(name: "misnamed batch files (uppercase ids)", damage: { root in
            for file in JournalReader.files(under: root) where file.hasSuffix(".batch") {
                let folder = (file as NSString).deletingLastPathComponent
                let name = (file as NSString).lastPathComponent
                let upper = String(name.prefix(15)) + name.dropFirst(15).dropLast(".batch".count).uppercased() + ".batch"
                try FileManager.default.moveItem(atPath: root + "/" + file, toPath: root + "/" + folder + "/" + upper)
            }
        }),
        DiskFault(name: "an unreadable batch file (EIO) while the launch runs", inject: { fileSystem, root in
            let first = JournalReader.files(under: root).filter { $0.hasSuffix(".batch") }.sorted().first ?? "none"
            fileSystem.failReads(ofPathsContaining: (first as NSString).lastPathComponent, with: EIO)
        }),
        DiskFault(
            name: "a set-aside flood at the file cap",
            earlierBatchSize: 1, earlierEvents: 30, earlierScript: Array(repeating: .status(400), count: 30),
            adjust: { $0.batchSize = 1; $0.limits.outboxFiles = 30 },
            newEvents: 10, allowedDrops: 10
        ),
        DiskFault(name: "ENOSPC during recovery", damage: unsealedJournal, inject: { fileSystem, _ in fileSystem.failOpens(with: ENOSPC) }),
        // The launch runs in memory, then takes the folder at a later flush: the earlier run's
        // batches are recovered late, the new events written after them.
        DiskFault(name: "the folder cannot be made at launch (ENOSPC), tried again", damage: unsealedJournal, inject: { fileSystem, root in
            fileSystem.failCreatingDirectories(containing: root, with: ENOSPC)
        }),
        DiskFault(
            name: "ENOSPC during a 413 split",
            ingest: LocalIngest.Configuration(maxBodyBytes: 2_000),
            adjust: { $0.compressesRequests = false },
            inject: { fileSystem, _ in fileSystem.failOpens(with: ENOSPC) }
        ),
    ]

    @Test("every event arrives once or is accounted for by a documented drop, flush always returns, and the counters balance", arguments: faults)
    func fault(_ fault: DiskFault) async throws {
        let directory = TemporaryDirectory()
        var drops = 0

        // The earlier run: its batches on disk (its edge may set them aside). The later runs'
        // ingest listens on the same port: an area's events wait for the endpoint they were
        // tracked for.
        let earlierEdge = try LocalIngest(configuration: LocalIngest.Configuration(port: try reusableLoopbackPort()))
        earlierEdge.script(fault.earlierScript)
        var earlierTuning = ClientTuning()
        earlierTuning.startsUploader = !fault.earlierScript.isEmpty
        let earlier = TestClient(tuning: earlierTuning, directory: directory, endpoint: earlierEdge.endpoint, adjust: { $0.batchSize = fault.earlierBatchSize })
        for seq in 0..<fault.earlierEvents { earlier.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        for _ in 0..<3 { await earlier.client.flush() }
        #expect(earlier.client.counters.delivered == 0)
        await shutDown(earlier.client)
        earlierEdge.stop()
        var sameEndpoint = fault.ingest
        sameEndpoint.port = earlierEdge.port
        let ingest = try LocalIngest(configuration: sameEndpoint)
        defer { ingest.stop() }
        try fault.damage(directory.path)

        // The faulty launch: the disk fails under it, and it must neither hang nor lose.
        let fileSystem = FaultInjectingFileSystem()
        fault.inject(fileSystem, directory.path)
        let faulty = TestClient(faults: fileSystem.injection, directory: directory, endpoint: ingest.endpoint, adjust: fault.adjust)
        for seq in 0..<fault.newEvents { faulty.client.track("e", properties: ["seq": .int(Int64(100_000 + seq))]) }
        // One flush while the disk fails, then the disk frees up (what a full disk does) and
        // what was held in memory meanwhile must reach it.
        for round in 0..<3 {
            _ = try await withTimeLimit(.seconds(60) * sanitizerSlack, waitingFor: "flush() on the faulty disk to return") { await faulty.client.flush() }
            if round == 0 { fileSystem.clearAll() }
        }
        #expect(faulty.client.counters.isBalanced, "\(fault): \(faulty.client.counters)")
        drops += faulty.client.counters.evictedByCaps + faulty.client.counters.lostFromDisk
        await shutDown(faulty.client)

        // The disk is back: the next launch sends what is left.
        try await withTestClient(directory: directory, endpoint: ingest.endpoint, adjust: fault.adjust) { last in
            for _ in 0..<5 where last.client.counters.pending > 0 || last.client.counters.recovered == 0 {
                _ = try await withTimeLimit(.seconds(60) * sanitizerSlack, waitingFor: "flush() after the relaunch to return") { await last.client.flush() }
            }
            let counters = last.client.counters
            #expect(counters.pending == 0 && counters.isBalanced, "\(fault): \(counters)")
            drops += counters.evictedByCaps + counters.lostFromDisk + counters.setAside
        }

        let seqs = ingest.receivedEvents.compactMap { if case .int(let seq)? = $0.properties["seq"] { Int(seq) } else { nil } }
        #expect(Set(seqs).count == seqs.count, "\(fault): nothing twice")
        #expect(drops <= fault.allowedDrops, "\(fault): \(drops) dropped")
        #expect(seqs.count + drops == fault.earlierEvents + fault.newEvents, "\(fault): \(seqs.count) arrived, \(drops) dropped")
        #expect(Set(100_000..<(100_000 + fault.newEvents)).isSubset(of: Set(seqs)), "\(fault): every new event arrived")
    }
}
