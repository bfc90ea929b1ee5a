import Testing
import SimpleDataLogsTesting
@testable import SimpleDataLogs

/// The intake log's bytes (``IntakeLogFormat``): what a reader takes back, and what it refuses.
@Suite("Intake log: the file format")
struct IntakeLogFormatTests {
    /// A file of `slotCount` slots with `records` written at the given slots.
    static func file(slotCount: Int, _ records: [(slot: Int, sequence: UInt64, payload: [UInt8])]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: IntakeLogFormat.fileSize(slotCount: slotCount))
        bytes.withUnsafeMutableBytes { raw in
            IntakeLogFormat.writeHeader(slotCount: slotCount, into: raw.baseAddress!)
            for record in records {
                record.payload.withUnsafeBytes { payload in
                    IntakeLogFormat.writeRecord(
                        sequence: record.sequence, kind: 7, payload: payload,
                        at: raw.baseAddress! + IntakeLogFormat.headerSize + record.slot * IntakeLogFormat.slotSize
                    )
                }
            }
        }
        return bytes
    }

    static func offset(ofSlot slot: Int) -> Int { IntakeLogFormat.headerSize + slot * IntakeLogFormat.slotSize }

    @Test("records written are read back by sequence number, payloads and kinds intact, whatever slots they sit in")
    func roundTrip() throws {
        let long = [UInt8](repeating: 0xAB, count: 300)  // three slots
        let bytes = Self.file(slotCount: 8, [(5, 9, Array("late".utf8)), (0, 7, []), (1, 8, long)])
        let contents = try IntakeLogFormat.decode(bytes).get()
        #expect(contents.records.map(\.sequence) == [7, 8, 9])
        #expect(contents.records.map(\.payload) == [[], long, Array("late".utf8)])
        #expect(contents.records.allSatisfy { $0.kind == 7 } && contents.damagedSlots == 0)
    }

    @Test("a torn record (any byte of it changed, or its marker not yet written) is not read back; the others are")
    func tornRecords() throws {
        let payload = [UInt8](repeating: 0x11, count: 200)
        let clean = Self.file(slotCount: 6, [(0, 1, payload), (2, 2, payload), (4, 3, payload)])
        for byte in [8, 16, 22, 24, 100, 223] {
            var torn = clean
            torn[Self.offset(ofSlot: 2) + byte] ^= 0x40
            let contents = try IntakeLogFormat.decode(torn).get()
            #expect(contents.records.map(\.sequence) == [1, 3], "byte \(byte) changed")
            #expect(contents.damagedSlots == 1)
        }
        var unmarked = clean
        for index in 0..<4 { unmarked[Self.offset(ofSlot: 4) + index] = 0 }
        #expect(try IntakeLogFormat.decode(unmarked).get().records.map(\.sequence) == [1, 2])
    }

    @Test("a stale record partly overwritten by a later lap is not read back; the newer one is")
    func staleOverwritten() throws {
        var bytes = Self.file(slotCount: 6, [(0, 1, [UInt8](repeating: 1, count: 300))])  // slots 0–2
        // A later lap writes a one-slot record at slot 1, over the middle of record 1.
        bytes.withUnsafeMutableBytes { raw in
            [UInt8](repeating: 2, count: 50).withUnsafeBytes { payload in
                IntakeLogFormat.writeRecord(sequence: 5, kind: 7, payload: payload, at: raw.baseAddress! + Self.offset(ofSlot: 1))
            }
        }
        let contents = try IntakeLogFormat.decode(bytes).get()
        #expect(contents.records.map(\.sequence) == [5])
        #expect(contents.damagedSlots == 1)
    }

    @Test("zeros, another program's file, a file shorter than its header and another version are refused as such; a file cut short keeps its whole records")
    func refused() throws {
        #expect(IntakeLogFormat.decode([UInt8](repeating: 0, count: 10_000)) == .failure(.notAnIntakeLog))
        #expect(IntakeLogFormat.decode(Array("hello".utf8)) == .failure(.truncated))
        var cut = Self.file(slotCount: 8, [(0, 1, [1]), (7, 2, [2])])
        cut.removeLast(IntakeLogFormat.slotSize / 2)
        #expect(try IntakeLogFormat.decode(cut).get().records.map(\.sequence) == [1], "the record in the cut slot is gone, the first stays")
        var newer = Self.file(slotCount: 2, [])
        newer[8] = 3
        #expect(IntakeLogFormat.decode(newer) == .failure(.otherVersion(3)))
    }

    @Test("the checksum tells apart payloads that differ in one bit, in length only, or in order")
    func checksum() {
        func sum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { IntakeLogChecksum.of($0) } }
        let base = (0..<64).map { UInt8($0) }
        var sums: Set<UInt32> = [sum(base), sum(base + [0]), sum(Array(base.reversed())), sum([]), sum([0])]
        for bit in 0..<(64 * 8) {
            var flipped = base
            flipped[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            sums.insert(sum(flipped))
        }
        #expect(sums.count == 5 + 64 * 8)
    }

    @Test("the checksum of every length from 0 to 300 bytes is the one the format defines (a byte-by-byte tail), so logs written before the faster tail still read")
    func checksumDefinition() {
        /// The format's checksum as first written: the last 0 to 7 bytes folded one at a time.
        func reference(_ bytes: [UInt8]) -> UInt32 {
            func step(_ lane: UInt64, _ word: UInt64, _ prime: UInt64) -> UInt64 {
                let sum = lane &+ word &* 0xC2B2_AE3D_27D4_EB4F
                return ((sum << 31) | (sum >> 33)) &* prime
            }
            func finalize(_ value: UInt64) -> UInt64 {
                var hash = value ^ (value >> 33)
                hash = hash &* 0xFF51_AFD7_ED55_8CCD
                hash ^= hash >> 33
                hash = hash &* 0xC4CE_B9FE_1A85_EC53
                return hash ^ (hash >> 33)
            }
            func word(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << UInt64(8 * $1) } }
            var first = finalize(0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count))
            var second: UInt64 = 0xC2B2_AE3D_27D4_EB4F
            var index = 0
            while index + 16 <= bytes.count {
                first = step(first, word(index), 0x9FB2_1C65_1E98_DF25)
                second = step(second, word(index + 8), 0xD6E8_FEB8_6659_FD93)
                index += 16
            }
            if index + 8 <= bytes.count {
                first = step(first, word(index), 0x9FB2_1C65_1E98_DF25)
                index += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count {
                tail |= UInt64(bytes[index]) << shift
                shift += 8
                index += 1
            }
            second = step(second, tail ^ 0xFF51_AFD7_ED55_8CCD, 0xD6E8_FEB8_6659_FD93)
            let hash = finalize(first ^ ((second << 23) | (second >> 41)))
            return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        }
        var random = SplitMix64(seed: 20_261_204)
        for count in 0...300 {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(bytes.withUnsafeBytes { IntakeLogChecksum.of($0) } == reference(bytes), "\(count) bytes")
        }
    }
}
