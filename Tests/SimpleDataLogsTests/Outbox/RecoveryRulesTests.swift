import Foundation
import Testing
@testable import SimpleDataLogs

/// What recovery decides at launch, on file names and payloads alone: no folder is read.
@Suite("Outbox: recovery's decisions", .stuckTestLimit)
struct RecoveryRulesTests {
    static let id = "018f0000-0000-7000-8000-000000000001"

    static func batchName(_ sequence: Int, path: String = "r") -> String {
        JournalName.batch(sequence: sequence, path: path, id: id)
    }

    @Test("a journal whose batch exists (sealed, or set aside) is retired; one without is recovered; the highest sequence counts every file")
    func inventory() {
        let inventory = RecoveryRules.inventory(
            folderNames: [JournalName.journal(3), JournalName.journal(5), JournalName.journal(7), "lock", "sessions"],
            batchNames: [Self.batchName(3), Self.batchName(4, path: "r0"), "stray.txt"],
            setAsideNames: [Self.batchName(5)]
        )
        #expect(inventory.retiredJournals == [3, 5], "a crash after the rename, before the journal's removal")
        #expect(inventory.journalsToRecover == [7], "a crash before the seal: its records are recovered")
        #expect(inventory.highestSequence == 7)
        #expect(RecoveryRules.inventory(folderNames: [], batchNames: [], setAsideNames: []) == RecoveryRules.AreaInventory())
    }

    @Test("a dead area's files are renumbered after ours, keeping their order, paths and ids; other names stay")
    func adoption() {
        let adoption = RecoveryRules.adoption(
            batchNames: [Self.batchName(2), Self.batchName(1, path: "r1"), "notes.txt"],
            setAsideNames: [Self.batchName(1, path: "r0")],
            journals: [3],
            after: 100
        )
        #expect(adoption.batches == [
            .init(from: Self.batchName(1, path: "r1"), to: Self.batchName(101, path: "r1")),
            .init(from: Self.batchName(2), to: Self.batchName(102)),
        ])
        #expect(adoption.setAside == [.init(from: Self.batchName(1, path: "r0"), to: Self.batchName(101, path: "r0"))])
        #expect(adoption.journals == [.init(from: 3, to: 103)])
        #expect(adoption.highestSequence == 103)
        #expect(RecoveryRules.adoption(batchNames: [], setAsideNames: [], journals: [], after: 9).highestSequence == 0)
    }

    @Test("recovered events are cut into runs that fit one request: 256 KiB of body and 1,000 events")
    func chunks() {
        let small = [[UInt8]](repeating: [UInt8](repeating: 1, count: 10), count: 2_500)
        #expect(RecoveryRules.chunked(small, policy: SealPolicy()).map(\.count) == [1_000, 1_000, 500])
        let large = [[UInt8]](repeating: [UInt8](repeating: 2, count: 100_000), count: 5)
        #expect(RecoveryRules.chunked(large, policy: SealPolicy()).map(\.count) == [2, 2, 1])
        let huge = [[UInt8](repeating: 3, count: 400_000)]
        #expect(RecoveryRules.chunked(huge, policy: SealPolicy()).map(\.count) == [1], "a single event larger than a body still forms a run")
        #expect(RecoveryRules.chunked([], policy: SealPolicy()) == [[]])
    }
}
