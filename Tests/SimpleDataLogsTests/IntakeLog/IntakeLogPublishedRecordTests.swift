import Foundation
import Testing
import SimpleDataLogsTesting
@testable import SimpleDataLogs

/// Format version 2 (decision 0045): `track()` publishes its record with no checksum, the
/// identity stage seals it, and what recovery trusts depends on whether the machine rebooted.
@Suite("Intake log: published and sealed records, one boot and the next")
struct IntakeLogPublishedRecordTests {
    static let bootA = Array("boot-a".utf8)
    static let bootB = Array("boot-b".utf8)

    /// The byte offset of `slot`.
    static func offset(ofSlot slot: Int) -> Int { IntakeLogFormat.headerSize + slot * IntakeLogFormat.slotSize }

    /// A record as `track()` writes it: payload in place, header, marker last, no checksum.
    static func publish(_ bytes: inout [UInt8], slot: Int, sequence: UInt64, payload: [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            let start = raw.baseAddress! + offset(ofSlot: slot)
            IntakeLogFormat.beginRecord(at: start)
            payload.withUnsafeBytes { (start + IntakeLogFormat.recordHeaderSize).copyMemory(from: $0.baseAddress!, byteCount: payload.count) }
            IntakeLogFormat.publishRecord(sequence: sequence, kind: 1, payloadCount: payload.count, at: start)
        }
    }

    /// A record as every other writer writes it: summed and sealed.
    static func sealedRecord(_ bytes: inout [UInt8], slot: Int, sequence: UInt64, payload: [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            payload.withUnsafeBytes { IntakeLogFormat.writeRecord(sequence: sequence, kind: 7, payload: $0, at: raw.baseAddress! + offset(ofSlot: slot)) }
        }
    }

    static func emptyFile(slotCount: Int = 8, bootID: [UInt8] = bootA) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: IntakeLogFormat.fileSize(slotCount: slotCount))
        bytes.withUnsafeMutableBytes { IntakeLogFormat.writeHeader(slotCount: slotCount, bootID: bootID, into: $0.baseAddress!) }
        return bytes
    }

    static func sequences(_ bytes: [UInt8], bootID: [UInt8]) throws -> [UInt64] {
        try IntakeLogFormat.decode(bytes, bootID: bootID).get().records.map(\.sequence)
    }

    @Test("a published record is read back in the boot it was written in; after a reboot, or with either boot unknown, only sealed ones are")
    func publishedTrustedInItsBootOnly() throws {
        var bytes = Self.emptyFile()
        Self.sealedRecord(&bytes, slot: 0, sequence: 1, payload: [1, 2, 3])
        Self.publish(&bytes, slot: 1, sequence: 2, payload: [4, 5, 6])
        #expect(try Self.sequences(bytes, bootID: Self.bootA) == [1, 2])
        #expect(try Self.sequences(bytes, bootID: Self.bootB) == [1])
        #expect(try IntakeLogFormat.decode(bytes, bootID: Self.bootB).get().damagedSlots == 1, "counted: lost to the reboot")
        #expect(try Self.sequences(bytes, bootID: []) == [1], "this boot unknown")
        var unknown = Self.emptyFile(bootID: [])
        Self.publish(&unknown, slot: 0, sequence: 1, payload: [7])
        #expect(try Self.sequences(unknown, bootID: Self.bootA).isEmpty, "the log's boot unknown")
        #expect(BootID.current.count > 0, "this machine's boot id is read (Linux: /proc/sys/kernel/random/boot_id)")
    }

    @Test("sealing a published record makes it survive a reboot; a sealed record with any byte changed is read back in no boot")
    func sealing() throws {
        var bytes = Self.emptyFile()
        let payload = [UInt8](repeating: 0x5A, count: 200)
        Self.publish(&bytes, slot: 2, sequence: 3, payload: payload)
        bytes.withUnsafeMutableBytes { IntakeLogFormat.seal(at: $0.baseAddress! + Self.offset(ofSlot: 2), payloadCount: payload.count) }
        #expect(bytes[Self.offset(ofSlot: 2)..<(Self.offset(ofSlot: 2) + 4)].elementsEqual("SDLS".utf8))
        #expect(try Self.sequences(bytes, bootID: Self.bootB) == [3])
        #expect(try IntakeLogFormat.decode(bytes, bootID: Self.bootB).get().records.first?.payload == payload)
        for byte in [8, 16, 22, 30, 223] {
            var torn = bytes
            torn[Self.offset(ofSlot: 2) + byte] ^= 0x04
            #expect(try Self.sequences(torn, bootID: Self.bootA).isEmpty, "byte \(byte), this boot")
            #expect(try Self.sequences(torn, bootID: Self.bootB).isEmpty, "byte \(byte), after a reboot")
        }
    }

    @Test("a published record at or below the released mark is no record of this run: it is not followed, so a record that starts inside its span is read")
    func publishedBelowTheMark() throws {
        var bytes = Self.emptyFile()
        Self.publish(&bytes, slot: 0, sequence: 1, payload: [UInt8](repeating: 1, count: 300))  // slots 0–2
        Self.publish(&bytes, slot: 1, sequence: 9, payload: [2])
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(8).littleEndian, toByteOffset: IntakeLogFormat.releasedOffset, as: UInt64.self) }
        let contents = try IntakeLogFormat.decode(bytes, bootID: Self.bootA).get()
        #expect(contents.records.map(\.sequence) == [9])
        #expect(Array(contents.unreleased.map(\.sequence)) == [9])
    }

    @Test("a version 1 log (every record summed, marked SDLR) written by the SDK before is still read, in any boot")
    func versionOne() throws {
        var bytes = Self.emptyFile(bootID: [])
        Self.sealedRecord(&bytes, slot: 0, sequence: 4, payload: [9, 9])
        Self.sealedRecord(&bytes, slot: 1, sequence: 5, payload: [8])
        // What version 1 wrote: version 1, no boot id, each record summed under "SDLR".
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 8, as: UInt32.self)
            for slot in [0, 1] { raw.storeBytes(of: IntakeLogFormat.marker.littleEndian, toByteOffset: Self.offset(ofSlot: slot), as: UInt32.self) }
        }
        #expect(try Self.sequences(bytes, bootID: Self.bootB) == [4, 5])
        var torn = bytes
        torn[Self.offset(ofSlot: 1) + IntakeLogFormat.recordHeaderSize] ^= 1
        #expect(try Self.sequences(torn, bootID: Self.bootB) == [4], "version 1's checksum still decides")
    }

    @Test("the record track() writes from its call's fields is, byte for byte, the one written from the event those fields make")
    func callEqualsEvent() throws {
        let fields: [(Event.Origin, Event.DeviceIDSource, [String: PropertyValue]?)] = [
            (.live, .inherited, nil),
            (.backdated, .explicit("device-7"), ["tenant": .string("acme"), "n": .int(3)]),
        ]
        for (origin, source, scoped) in fields {
            let id = UUID()
            let properties: [String: PropertyValue] = ["plan": .string("pro"), "price": .double(19.99), "ok": .bool(true), "long": .string(String(repeating: "é", count: 40))]
            let event = Event(
                name: "checkout", id: id, timestamp: 1_700_000_000_000, trackedAt: 1_700_000_000_500, properties: properties,
                origin: origin, deviceIDSource: source, scopedProperties: scoped
            )
            var fromEvent = [UInt8](repeating: 0, count: 1_024)
            var fromCall = [UInt8](repeating: 0, count: 1_024)
            let eventCount = fromEvent.withUnsafeMutableBytes { IntakeRecordCodec.write(event, at: $0.baseAddress!, end: $0.baseAddress! + $0.count) }
            let callCount = fromCall.withUnsafeMutableBytes {
                IntakeRecordCodec.writeCall(
                    name: "checkout", id: EventIDWords(id), timestamp: 1_700_000_000_000, trackedAt: 1_700_000_000_500, origin: origin,
                    deviceIDSource: source, properties: properties, scoped: scoped, at: $0.baseAddress!, end: $0.baseAddress! + $0.count
                )
            }
            #expect(eventCount != nil && eventCount == callCount)
            #expect(fromEvent == fromCall)
            #expect(EventIDWords(id).uuid == id)
        }
    }

    @Test("with the log on, the stage seals what track() published: after a flush, read as after a reboot, this run's log holds every event")
    func stageSeals() async throws {
        try await withTestClient { test in
            #expect(test.client.hasIntakeLog)
            for seq in 0..<50 { test.client.track("sealed", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            let logs = ((try? FileManager.default.contentsOfDirectory(atPath: test.directory.path)) ?? []).filter { IntakeLogFiles.parts(ofName: $0) != nil }
            #expect(logs.count == 1)
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: test.directory.path + "/" + logs[0])))
            let afterReboot = try IntakeLogFormat.decode(bytes, bootID: Self.bootB).get()
            let seqs = afterReboot.records.filter { $0.kind == IntakeRecordCodec.Kind.event.rawValue }.compactMap { IntakeRecordCodec.seqProperty(ofEventPayload: $0.payload) }
            #expect(seqs == Array(0..<50))
            #expect(afterReboot.damagedSlots == 0)
        }
    }

    @Test("the readers take any bytes: every cut of a real record and 20,000 random changes of it decode to an item or to nothing, never past their end; a log of them reads in either boot, never more after a reboot than in its boot")
    func anyBytes() throws {
        let event = Event(
            name: "checkout", id: UUID(), timestamp: 1_700_000_000_000, trackedAt: 1_700_000_000_000,
            properties: ["plan": .string("pro"), "n": .int(7), "x": .double(0.5), "ok": .bool(false), "long": .string(String(repeating: "ü", count: 30))],
            origin: .live, deviceIDSource: .explicit("d-1"), scopedProperties: ["tenant": .string("acme")]
        )
        var record = [UInt8](repeating: 0, count: 512)
        let count = try #require(record.withUnsafeMutableBytes { IntakeRecordCodec.write(event, at: $0.baseAddress!, end: $0.baseAddress! + $0.count) })
        record.removeLast(record.count - count)
        #expect(IntakeRecordCodec.decode(record) != nil)
        for cut in 0..<count {
            #expect(IntakeRecordCodec.decode(Array(record.prefix(cut))) == nil, "cut at \(cut)")
        }
        var random = SplitMix64(seed: 20_261_205)
        for _ in 0..<20_000 {
            var changed = record
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                changed[Int.random(in: 0..<changed.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            // Anything but a trap or a read past the end (ASan in CI) passes: an item or nil.
            _ = IntakeRecordCodec.decode(changed)
        }
        var log = Self.emptyFile(slotCount: 16)
        for slot in 0..<16 where slot % 4 == 0 { Self.publish(&log, slot: slot, sequence: UInt64(slot + 1), payload: record) }
        for _ in 0..<2_000 {
            var changed = log
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                changed[Int.random(in: IntakeLogFormat.headerSize..<changed.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let same = try IntakeLogFormat.decode(changed, bootID: Self.bootA).get().records.map(\.sequence)
            let other = try IntakeLogFormat.decode(changed, bootID: Self.bootB).get().records.map(\.sequence)
            #expect(Set(other).isSubset(of: Set(same)))
            for payload in try IntakeLogFormat.decode(changed, bootID: Self.bootA).get().records.map(\.payload) { _ = IntakeRecordCodec.decode(payload) }
        }
    }
}
