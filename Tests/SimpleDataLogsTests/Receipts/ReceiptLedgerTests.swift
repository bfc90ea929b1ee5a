import Foundation
import Testing
@testable import SimpleDataLogs

/// The ledger's rules, synchronously: no file, clock or thread.
@Suite("Receipt ledger rules")
struct ReceiptLedgerTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_796_205_600_000

    static func counts(delivered: Int = 0, rejected: Int = 0, evicted: Int = 0, invalid: Int = 0) -> ReceiptCounts {
        var counts = ReceiptCounts()
        counts.delivered = delivered
        counts.rejectedByIngest = rejected
        counts.evictedByCaps = evicted
        counts.invalid = invalid
        return counts
    }

    @Test("a receipt takes the counts since the last one, numbers itself, and starts the next period at zero")
    func beginReceipt() {
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        ledger.add(Self.counts(delivered: 890, rejected: 10, evicted: 100))
        let first = ledger.beginReceipt(at: Self.start + Self.day, setAside: 3, pending: 7, appVersion: "2.3.1")
        #expect(first.sequence == 1 && first.counts == Self.counts(delivered: 890, rejected: 10, evicted: 100))
        #expect(first.counts.settled == 1_000 && first.since == Self.start && first.at == Self.start + Self.day)
        #expect(ledger.counts.isZero && ledger.nextSequence == 2 && ledger.periodStart == Self.start + Self.day)
        #expect(ledger.pending == [first])
        ledger.add(Self.counts(delivered: 1))
        let second = ledger.beginReceipt(at: Self.start + 2 * Self.day, setAside: 0, pending: 0, appVersion: nil)
        #expect(second.sequence == 2 && second.counts.delivered == 1 && ledger.pending == [first, second])
        ledger.receiptsJournaled([first.eventID])
        #expect(ledger.pending == [second])
    }

    @Test("launch deletes only the batch files a ledger may name: never another folder, a link up, or the area's own files")
    func settledFileNames() {
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        let names = [
            "batches/000001-l-5b1c.batch", "set-aside/000002-l-77aa.batch",
            "../a1/batches/000003-l-1234.batch", "batches/../owner", "owner", "lock", "receipts.ledger",
            "batches/sub/000004.batch", "/etc/passwd", "batches/.batch", "tmp/000005-l-0000.batch", "batches/x.log",
        ]
        ledger.settle(ReceiptCounts(), files: names) { _ in true }
        #expect(ledger.takeSettledFiles() == ["batches/000001-l-5b1c.batch", "set-aside/000002-l-77aa.batch"])
        #expect(ledger.takeSettledFiles().isEmpty, "taken once")
    }

    @Test("two slots: launch reads the intact one stored last; a slot torn by a kill mid-store leaves the other, one store older")
    func slots() {
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        ledger.add(Self.counts(delivered: 50))
        let older = ledger.encoded(stored: 7)
        ledger.add(Self.counts(delivered: 50))
        let newer = ledger.encoded(stored: 8)
        #expect(ReceiptLedger.newest(of: [older, newer])?.slot == 1)
        #expect(ReceiptLedger.newest(of: [newer, older])?.ledger.counts.delivered == 100)
        let torn = Array(newer.prefix(newer.count / 2))
        let survivor = ReceiptLedger.newest(of: [older, torn])
        #expect(survivor?.slot == 0 && survivor?.stored == 7 && survivor?.ledger.counts.delivered == 50)
        #expect(ReceiptLedger.newest(of: [nil, []]) == nil && ReceiptLedger.newest(of: [nil, nil]) == nil)
    }

    @Test("a receipt made again after a kill has the same event id; another ledger's or sequence's differs")
    func derivedIDs() {
        let id = UUID()
        var one = ReceiptLedger(id: id, now: Self.start)
        var copy = one
        let made = one.beginReceipt(at: Self.start + 1, setAside: 0, pending: 0, appVersion: nil)
        let again = copy.beginReceipt(at: Self.start + 5, setAside: 1, pending: 1, appVersion: nil)
        #expect(made.eventID == again.eventID)
        #expect(made.eventID == UUID(eventKey: EventEncoder.lowercaseString(id) + "/1", in: "sdl-receipt"))
        let next = one.beginReceipt(at: Self.start + 2, setAside: 0, pending: 0, appVersion: nil)
        var other = ReceiptLedger(id: UUID(), now: Self.start)
        #expect(next.eventID != made.eventID && other.beginReceipt(at: Self.start, setAside: 0, pending: 0, appVersion: nil).eventID != made.eventID)
    }

    @Test("due a whole period after the last receipt, or when the clock went back more than a period")
    func due() {
        let ledger = ReceiptLedger(id: UUID(), now: Self.start)
        #expect(!ledger.isDue(now: Self.start, period: Self.day))
        #expect(!ledger.isDue(now: Self.start + Self.day - 1, period: Self.day))
        #expect(ledger.untilDue(now: Self.start + Self.day - 1, period: Self.day) == 1)
        #expect(ledger.isDue(now: Self.start + Self.day, period: Self.day))
        #expect(ledger.untilDue(now: Self.start + 3 * Self.day, period: Self.day) == 0)
        #expect(ledger.isDue(now: Self.start - 2 * Self.day, period: Self.day))
        #expect(ledger.untilDue(now: Self.start - Self.day / 2, period: Self.day) == Self.day)
    }

    @Test("settled files are remembered until gone, and taken once at launch")
    func settledFiles() {
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        ledger.settle(Self.counts(delivered: 50), files: ["batches/a.batch"]) { _ in true }
        ledger.settle(Self.counts(delivered: 50), files: ["batches/b.batch"]) { $0 == "batches/a.batch" }
        #expect(ledger.settledFiles == ["batches/a.batch", "batches/b.batch"] && ledger.counts.delivered == 100)
        ledger.settle(ReceiptCounts(), files: []) { _ in false }
        #expect(ledger.settledFiles.isEmpty)
        ledger.settle(Self.counts(evicted: 50), files: ["set-aside/c.batch"]) { _ in false }
        #expect(ledger.takeSettledFiles() == ["set-aside/c.batch"] && ledger.settledFiles.isEmpty)
    }

    @Test("an adopted ledger's counts become its own receipt, once; a copy found after a kill is not counted again")
    func absorb() {
        var ours = ReceiptLedger(id: UUID(), now: Self.start)
        var theirs = ReceiptLedger(id: UUID(), now: Self.start - 10)
        theirs.add(Self.counts(delivered: 40, invalid: 2))
        theirs.nextSequence = 4
        let taken = ours.absorb(theirs, at: Self.start + 5)
        #expect(taken)
        #expect(ours.pending.count == 1 && ours.counts.isZero)
        let receipt = ours.pending[0]
        #expect(receipt.ledger == theirs.id && receipt.sequence == 4 && receipt.counts.settled == 42 && receipt.since == Self.start - 10)
        let again = ours.absorb(theirs, at: Self.start + 6)
        #expect(!again, "the same ledger again (a kill before its file went)")
        #expect(ours.pending.count == 1)
        let itself = ours
        let own = ours.absorb(itself, at: Self.start + 6)
        #expect(!own)
    }

    @Test("counts fold as differences, so a batch evicted and then accepted moves between reasons; the sum stays")
    func differences() {
        var before = DeliveryCounters()
        before.evictedByCaps = 50
        var after = before
        after.evictedByCaps = 0
        after.delivered = 50
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        ledger.add(ReceiptCounts(before))
        ledger.add(ReceiptCounts(after) - ReceiptCounts(before))
        #expect(ledger.counts.delivered == 50 && ledger.counts.evictedByCaps == 0 && ledger.counts.settled == 50)
        #expect((ReceiptCounts(after) - ReceiptCounts(before)).differsInFileSettlements(from: ReceiptCounts()))
        var memoryOnly = DeliveryCounters()
        memoryOnly.invalid = 3
        #expect(!ReceiptCounts(memoryOnly).differsInFileSettlements(from: ReceiptCounts()))
    }

    @Test("the ledger file round-trips; a torn, damaged or foreign file reads as none")
    func file() {
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        ledger.add(Self.counts(delivered: 7))
        _ = ledger.beginReceipt(at: Self.start + 1, setAside: 0, pending: 0, appVersion: "1.0")
        ledger.settle(Self.counts(delivered: 1), files: ["batches/x.batch"]) { _ in true }
        let bytes = ledger.encoded()
        #expect(ReceiptLedger.decode(bytes) == ledger)
        #expect(ReceiptLedger.decode(Array(bytes.dropLast())) == nil, "torn")
        var flipped = bytes
        flipped[flipped.count - 3] ^= 0x01
        #expect(ReceiptLedger.decode(flipped) == nil, "damaged")
        #expect(ReceiptLedger.decode(bytes + bytes) == nil, "two records")
        var foreign: [UInt8] = []
        JournalRecord.append(payload: Array(#"{"sdl_ledger":2,"ledger":{}}"#.utf8), to: &foreign)
        #expect(ReceiptLedger.decode(foreign) == nil)
    }

    @Test("the receipt event: the SDK's own, with every count, the snapshots, the versions, and no device or session")
    func event() {
        var ledger = ReceiptLedger(id: UUID(), now: Self.start)
        ledger.add(Self.counts(delivered: 890, rejected: 10, evicted: 100))
        let receipt = ledger.beginReceipt(at: Self.start + Self.day, setAside: 3, pending: 7, appVersion: "2.3.1")
        let event = receipt.event
        #expect(event.name == "delivery_receipt" && event.id == receipt.eventID && event.timestamp == Self.start + Self.day)
        #expect(event.origin == .autocaptured && event.deviceID == nil && event.sessionID == nil)
        let properties = event.properties
        #expect(properties["delivered"] == 890 && properties["rejected"] == 10 && properties["evicted"] == 100)
        #expect(properties["settled"] == 1_000 && properties["set_aside"] == 3 && properties["pending"] == 7)
        #expect(properties["receipt_seq"] == 1 && properties["period_start_ms"] == .int(Self.start))
        #expect(properties["sdk_version"] == .string(SimpleDataLogsVersion.current) && properties["app_version"] == "2.3.1")
        #expect(properties["receipt_ledger"] == .string(EventEncoder.lowercaseString(ledger.id)))
        for name in ["too_large", "lost_from_disk", "skipped_backlog", "invalid", "dropped_by_middleware", "dropped_before_configure", "dropped_at_shutdown"] {
            #expect(properties[name] == 0, "\(name)")
        }
    }
}
