import Foundation
import Testing
@testable import SimpleDataLogs

/// The batch being filled, on its value alone: its seal rules, its journal image, its sequences.
@Suite("Outbox: the open batch", .stuckTestLimit)
struct OpenBatchTests {
    static let policy = SealPolicy(maxEvents: 3, maxAge: .seconds(10))

    static func payload(_ byte: UInt8, count: Int = 10) -> [UInt8] { [UInt8](repeating: byte, count: count) }

    @Test("the first event starts its age, the policy's count fills it, and sealing starts the next sequence with a new id")
    func fillAndSeal() {
        var open = OpenBatch()
        open.startAtNextSequence()
        #expect(open.sequence == 1 && open.nextSequence == 2 && open.isEmpty)
        #expect(open.append(Self.payload(1), policy: Self.policy) == (isFirst: true, isFull: false))
        #expect(open.append(Self.payload(2), policy: Self.policy) == (isFirst: false, isFull: false))
        #expect(open.append(Self.payload(3), policy: Self.policy) == (isFirst: false, isFull: true))
        #expect(open.usage == OutboxCaps.Usage(events: 3, bytes: 30 + 3 * JournalRecord.headerSize, files: 1))
        let id = open.id
        let sealed = open.seal()
        #expect(sealed.id == id && sealed.sequence == 1 && sealed.path == "r" && sealed.payloads == [Self.payload(1), Self.payload(2), Self.payload(3)])
        #expect(open.sequence == 2 && open.nextSequence == 3 && open.id != id && open.isEmpty)
        #expect(open.usage == OutboxCaps.Usage(), "an empty batch has no journal file to count")
        #expect(open.unwrittenRecords.isEmpty)
    }

    @Test("an event that would take the body over the limit seals first; an empty batch takes any event")
    func sizeRule() {
        var open = OpenBatch()
        #expect(!open.mustSealBefore(adding: 400_000, policy: SealPolicy()), "alone, it goes in (and is sent alone)")
        _ = open.append(Self.payload(1, count: 200_000), policy: SealPolicy())
        #expect(open.mustSealBefore(adding: 63_000, policy: SealPolicy()), "200,000 + 63,000 bytes and the framing pass 256 KiB")
        #expect(!open.mustSealBefore(adding: 1_000, policy: SealPolicy()))
    }

    @Test("unwritten records are lent once: appended records, or the whole file (header first) for a new journal")
    func journalWrites() throws {
        var open = OpenBatch()
        _ = open.append(Self.payload(7), policy: Self.policy)
        var written: [[UInt8]] = []
        open.writeUnwritten(wholeFile: false) { written.append($0) }
        open.writeUnwritten(wholeFile: false) { written.append($0) }
        #expect(written[0].count == JournalRecord.headerSize + 10 && written[1].isEmpty, "each record is written once")

        _ = open.append(Self.payload(8), policy: Self.policy)
        open.writeUnwritten(wholeFile: true) { written.append($0) }
        let file = BatchFile.decode(written[2])
        #expect(file.payloads == [Self.payload(7), Self.payload(8)] && file.damage.isEmpty, "a whole journal file: header and both records")
        #expect(open.journalImage() == written[2])

        struct Refused: Error {}
        _ = open.append(Self.payload(9), policy: Self.policy)
        #expect(throws: Refused.self) { try open.writeUnwritten(wholeFile: false) { _ throws(Refused) in throw Refused() } }
        #expect(open.unwrittenRecords.isEmpty, "a failed write is retried by rewriting the whole file, not by appending")
    }

    @Test("recovery reserves the sequences it found; the opt-out drops the events but keeps the sequence")
    func sequences() {
        var open = OpenBatch()
        open.reserve(above: 41)
        open.reserve(above: 7)
        open.startAtNextSequence()
        #expect(open.sequence == 42 && open.nextSequence == 43)
        _ = open.append(Self.payload(1), policy: Self.policy)
        open.discard()
        #expect(open.isEmpty && open.sequence == 42 && open.unwrittenRecords.isEmpty)
    }
}
