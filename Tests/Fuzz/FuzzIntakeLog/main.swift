// libFuzzer target for the intake log's readers (decision 0045): `IntakeRecordCodec`'s call record
// reader and `IntakeLogFormat.decode(_:bootID:)`, the log file reader (versions 1 and 2). Both
// read files another process left, so no bytes may make them trap or read out of bounds.
//
// Declarations only: a plain `swift build` links an empty program; a fuzz build
// (`-sanitize=fuzzer,address -parse-as-library`, scripts/fuzz.sh) gets libFuzzer's `main`.
//
// Input: byte 0 chooses the branch.
//  - bit 0 clear: the rest is one call record's payload (Docs/formats.md), decoded as it is.
//  - bit 0 set: the rest is an intake log file. With bit 1 clear it is compact: its first 96
//    bytes are the header's fields, padded with zeros to the 4,096-byte header page, and what
//    follows is the slots (so a mutation of a slot needs no 4 KB input); with bit 1 set the rest
//    is the file exactly (short files included).
//
// Invariants, beyond "no crash" (each traps here, never in Sources/):
//  Call records:
//   1. the array form and the in-place form give the same item, or both nil;
//   2. an item read back, encoded again and read back, is the same item.
//  Log files, read under the boot id the header names ("same") and under another ("foreign"):
//   3. both readings fail alike or succeed alike, with the same `releasedThrough`;
//   4. records come sorted by sequence number, each payload no longer than the file, and each
//      starts at a slot of the file with a marker and its fields;
//   5. every record read under the foreign boot is read under the same boot too (as a multiset
//      of sequence, kind and payload), unless it starts inside the slots of a record the
//      same-boot reading took, which then took a record the foreign one did not (`coveredByTaken`);
//   6. a version 1 log, or a version 2 log whose header names no usable boot id, reads the same
//      under both boots (the boot matters only to a version 2 log that names one);
//   7. each record's payload goes through invariants 1 and 2.

import SimpleDataLogs

func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("FuzzIntakeLog invariant violated: \(message())") }
}

/// The compact form's header: the fields the reader reads (magic to boot id), 96 bytes.
enum CompactHeader {
    static let fieldsSize = 96
}

// MARK: Call records

func checkCallRecord(_ payload: [UInt8]) {
    let decoded = IntakeRecordCodec.fuzzDecodings(payload)
    // 1
    check(decoded.fromArray == decoded.inPlace, "array and in-place readings differ: \(String(describing: decoded.fromArray)) vs \(String(describing: decoded.inPlace))")
    // 2
    if let item = decoded.fromArray {
        check(decoded.reencoded == item, "re-encoded item reads back as \(String(describing: decoded.reencoded)), not \(item)")
    }
}

// MARK: Log files

func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
}

func readUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}

/// The boot id the header names (its length byte clamped to the room), or nil where the file has
/// no header.
func headerBootID(_ file: [UInt8]) -> [UInt8]? {
    let offset = IntakeLogFormat.bootIDOffset
    guard file.count >= offset + 1 + 63 else { return nil }
    let count = min(Int(file[offset]), 63)
    return Array(file[(offset + 1)..<(offset + 1 + count)])
}

/// Whether the header names a boot id a reader can compare: a length of 1 to 63.
func namesBootID(_ file: [UInt8]) -> Bool {
    let offset = IntakeLogFormat.bootIDOffset
    return file.count > offset && (1...63).contains(Int(file[offset]))
}

struct RecordKey: Hashable {
    var sequence: UInt64
    var kind: UInt8
    var payload: [UInt8]

    init(_ record: IntakeLogFormat.Record) {
        sequence = record.sequence
        kind = record.kind
        payload = record.payload
    }
}

/// The slots at which a record with these fields starts in `file`, with the marker `marker`.
func startingSlots(of record: IntakeLogFormat.Record, marker: UInt32, in file: [UInt8]) -> [Int] {
    let header = IntakeLogFormat.headerSize, size = IntakeLogFormat.slotSize
    guard file.count >= header else { return [] }
    var slots: [Int] = []
    for slot in 0..<((file.count - header) / size) {
        let offset = header + slot * size
        let end = offset + IntakeLogFormat.recordHeaderSize + record.payload.count
        guard end <= file.count, readUInt32(file, offset) == marker, readUInt64(file, offset + 8) == record.sequence,
              Int(readUInt32(file, offset + 16)) == record.payload.count, file[offset + 22] == record.kind,
              file[(offset + IntakeLogFormat.recordHeaderSize)..<end].elementsEqual(record.payload) else { continue }
        slots.append(slot)
    }
    return slots
}

/// Whether a record read only under the foreign boot starts inside the slots of a record the
/// same-boot reading took. That is by design, not a loss: in the boot a published record was
/// written in, it is whole, so the slots it spans are its payload and the reader skips them;
/// under another boot it is not trusted, the reader tries the next slot, and a stale sealed record
/// whose pages were never overwritten on disk (or payload bytes that frame one with a right
/// checksum) can start there. Such a record can span further and hide a sealed record the
/// same-boot reading took, whose own slots may then hold another one only the foreign reading
/// sees: so any record the same-boot reading took counts, not only published ones.
func coveredByTaken(_ record: IntakeLogFormat.Record, file: [UInt8], taken: [IntakeLogFormat.Record]) -> Bool {
    let starts = startingSlots(of: record, marker: IntakeLogFormat.sealedMarker, in: file)
    for other in taken {
        let spans = IntakeLogFormat.slots(forPayload: other.payload.count)
        let otherStarts = startingSlots(of: other, marker: IntakeLogFormat.marker, in: file)
            + startingSlots(of: other, marker: IntakeLogFormat.sealedMarker, in: file)
        for start in otherStarts where starts.contains(where: { $0 > start && $0 < start + spans }) {
            return true
        }
    }
    return false
}

func checkLog(_ file: [UInt8]) {
    let named = headerBootID(file) ?? []
    let foreign = named.isEmpty ? Array("another-boot".utf8) : Array(named.dropLast()) + [named.last! ^ 0x01]
    let same = IntakeLogFormat.decode(file, bootID: named)
    let other = IntakeLogFormat.decode(file, bootID: foreign)
    // 3
    guard case .success(let sameContents) = same, case .success(let otherContents) = other else {
        check(same == other, "the two boots read differently: \(same) vs \(other)")
        return
    }
    check(sameContents.releasedThrough == otherContents.releasedThrough, "releasedThrough differs between the boots")
    for contents in [sameContents, otherContents] {
        // 4
        check(zip(contents.records, contents.records.dropFirst()).allSatisfy { $0.sequence <= $1.sequence }, "records out of order")
        check(contents.records.allSatisfy { $0.payload.count <= file.count }, "a payload longer than the file")
        for record in contents.records {
            let found = startingSlots(of: record, marker: IntakeLogFormat.marker, in: file)
                + startingSlots(of: record, marker: IntakeLogFormat.sealedMarker, in: file)
            check(!found.isEmpty, "record \(record.sequence) starts at no slot of the file with its fields")
        }
        _ = contents.unreleased
    }
    // 5
    var sameCounts: [RecordKey: Int] = [:]
    for record in sameContents.records { sameCounts[RecordKey(record), default: 0] += 1 }
    var onlyForeign: [IntakeLogFormat.Record] = []
    for record in otherContents.records {
        let key = RecordKey(record)
        if let count = sameCounts[key], count > 0 { sameCounts[key] = count - 1 } else { onlyForeign.append(record) }
    }
    if !onlyForeign.isEmpty {
        // Only trusting a published record makes the readings differ: the same-boot one took one.
        check(sameContents.records.count > otherContents.records.count - onlyForeign.count, "the foreign reading has records of its own, and the same-boot one took nothing more")
        for record in onlyForeign {
            check(coveredByTaken(record, file: file, taken: sameContents.records), "record \(record.sequence) (kind \(record.kind), \(record.payload.count) bytes) is read under a foreign boot only")
        }
    }
    // 6
    let version = readUInt32(file, 8)
    if version == 1 || !namesBootID(file) {
        check(sameContents == otherContents, "a log whose boot does not matter (version \(version)) reads differently under two boots")
    }
    // 7
    for record in sameContents.records + otherContents.records { checkCallRecord(record.payload) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntakeLog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if control & 1 == 0 {
        checkCallRecord(rest)
    } else if control & 2 == 0 {
        // Compact: the header's fields, zero-padded to the header page, then the slots.
        let fields = rest.prefix(CompactHeader.fieldsSize)
        var file = Array(fields) + [UInt8](repeating: 0, count: IntakeLogFormat.headerSize - fields.count)
        file += rest.dropFirst(CompactHeader.fieldsSize)
        checkLog(file)
    } else {
        checkLog(rest)
    }
    return 0
}

#if SDL_LIBFUZZER
/// libFuzzer's driver: runs `callback` on the corpus, or on mutations, as the arguments say.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// The program's `main` in a fuzz build. SwiftPM links every executable product with
/// `--defsym main=FuzzIntakeLog_main`, and `-parse-as-library` emits no entry point, so this one
/// hands over to libFuzzer, whose own `main` the defsym hides. scripts/fuzz.sh passes `-D SDL_LIBFUZZER`.
@_cdecl("FuzzIntakeLog_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzIntakeLog(data, size) }
}
#endif
