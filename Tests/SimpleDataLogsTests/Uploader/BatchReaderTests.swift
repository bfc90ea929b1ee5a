import Foundation
import Testing
@testable import SimpleDataLogs

/// The uploader's check of what it read (issue 24): a batch is sent under its id only when the
/// file holds that batch. Pure: bytes in, a verdict out.
@Suite("Uploader: a batch file is checked against the batch queued under its name")
struct BatchReaderTests {
    static let payloads: [[UInt8]] = [Array(#"{"n":1}"#.utf8), Array(#"{"n":2}"#.utf8), Array(#"{"n":3}"#.utf8)]

    static func sealed(_ payloads: [[UInt8]] = payloads) -> SealedBatch {
        SealedBatch(id: UUID(), sequence: 7, path: "r", payloads: payloads)
    }

    static func stored(_ batch: SealedBatch) -> StoredBatch {
        StoredBatch(id: batch.id, sequence: batch.sequence, path: batch.path, eventCount: batch.payloads.count, byteCount: BatchFile.encode(batch).count)
    }

    static func isMismatch(_ read: BatchReader.Read) -> Bool {
        if case .mismatched = read { true } else { false }
    }

    @Test("the batch as sealed loads, with its events in order")
    func intact() {
        let batch = Self.sealed()
        #expect(BatchReader.check(BatchFile.encode(batch), against: Self.stored(batch)) == .loaded(batch))
    }

    @Test("an emptied file (recycled into a spare) is a mismatch, never an empty batch")
    func emptied() {
        #expect(Self.isMismatch(BatchReader.check([], against: Self.stored(Self.sealed()))))
    }

    @Test("a file cut short (emptied during the read) is a mismatch")
    func cutShort() {
        let batch = Self.sealed()
        let bytes = BatchFile.encode(batch)
        #expect(Self.isMismatch(BatchReader.check(Array(bytes.prefix(bytes.count - 4)), against: Self.stored(batch))))
    }

    @Test("another batch's file with as many events (a spare become the next journal) is a mismatch: the header's id is checked")
    func foreign() {
        let batch = Self.sealed()
        let other = Self.sealed([Array(#"{"n":9}"#.utf8), Array(#"{"n":8}"#.utf8), Array(#"{"n":7}"#.utf8)])
        #expect(Self.isMismatch(BatchReader.check(BatchFile.encode(other), against: Self.stored(batch))))
    }

    @Test("two headers in one file are a mismatch")
    func twoHeaders() {
        let batch = Self.sealed()
        let bytes = BatchFile.encode(batch) + BatchFile.header(id: batch.id, sequence: batch.sequence, path: batch.path)
        #expect(Self.isMismatch(BatchReader.check(bytes, against: Self.stored(batch))))
    }

    @Test("a damaged header with every event intact still loads: the name carries the id")
    func damagedHeader() {
        let batch = Self.sealed()
        var bytes = BatchFile.encode(batch)
        bytes[JournalRecord.headerSize + 2] ^= 0x01 // inside the header's payload: its checksum fails
        #expect(BatchReader.check(bytes, against: Self.stored(batch)) == .loaded(batch))
    }

    @Test("a batch held in memory is taken from memory; a file that is not there has vanished")
    func memoryAndVanished() {
        let batch = Self.sealed()
        var held = Self.stored(batch)
        held.heldInMemory = batch
        let reader = BatchReader(fileSystem: PosixFileSystem())
        #expect(reader.read(held, in: nil) == .loaded(batch))
        #expect(reader.read(Self.stored(batch), in: NSTemporaryDirectory() + "/sdl-no-such-folder-\(UUID())") == .vanished)
    }
}
