import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: quarantine is not forever", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct QuarantineRetryTests {
    @Test("a batch file quarantined after a transient read error (EIO) is restored at the next launch that can read it, and delivered")
    func transientReadError() async throws {
        let directory = await UnloadableBatchTests.leftOutbox(batches: 2)
        let first = try #require(UnloadableBatchTests.batchFiles(in: directory).sorted().first)
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failReads(ofPathsContaining: (first as NSString).lastPathComponent, with: EIO)
        var quiet = ClientTuning()
        quiet.startsUploader = false
        let flaky = TestClient(tuning: quiet, faults: fileSystem.injection, directory: directory, endpoint: UnloadableBatchTests.endpoint(of: directory))
        await flaky.drain()
        #expect(flaky.client.counters.recovered == 50, "one batch read, one quarantined")
        #expect(JournalReader.files(under: directory.path).filter { $0.hasPrefix("quarantine/") }.count == 1)
        await shutDown(flaky.client)

        try await UnloadableBatchTests.withDeliveryToItsEndpoint(directory) { delivery in
            let result = await delivery.client.flush()
            #expect(result.delivered == 100 && delivery.deliveredSeqs == Array(0..<100))
            #expect(!JournalReader.files(under: directory.path).contains { $0.hasPrefix("quarantine/") })
        }
    }
}
