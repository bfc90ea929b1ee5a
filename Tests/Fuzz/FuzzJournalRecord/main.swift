// libFuzzer target for the journal record reader, `JournalRecord.scan` (Docs/formats.md; DESIGN.md section 7).
//
// Declarations only: a plain `swift build` links an empty program; a fuzz build
// (`-sanitize=fuzzer,address -parse-as-library`, scripts/fuzz.sh) gets libFuzzer's `main`.
//
// Input: the bytes of a journal file, scanned as they are. If the first byte is 0x01, the rest is
// scanned after every marker-framed record whose length fits has had its CRC rewritten to the
// right value ("fix-up mode"), so mutations reach intact-record paths the CRC would otherwise hide.
//
// Invariants, beyond "no crash" (checked against an independent CRC-32 and record check):
//  1. Every record's payload range lies inside the input, with its 12-byte header before it.
//  2. Record extents (header + payload) and damage runs are increasing, do not overlap, and
//     together cover the input exactly, from 0 to its end.
//  3. Every record is intact: marker, length field equal to the payload length and within the
//     cap, stored CRC equal to the CRC of length field + payload.
//  4. Damage runs are non-empty and never adjacent (the reader merges them).
//  5. Resynchronization loses nothing: no intact record starts at any byte inside a damage run,
//     and every damage run ends at the end of the input or at a 0xFF byte.
//  6. The scan is a function of the bytes: a copy of the input scans the same.
//  7. Re-framing the found payloads with `JournalRecord.append` scans back to the same payloads,
//     with no damage.

import SimpleDataLogs

/// The reflected CRC-32 (zlib's polynomial 0xEDB88320), computed without zlib.
enum ReferenceCRC32 {
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}

func readUInt32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
}

/// Whether the record marker `FF 53 44 4C` starts at `position` (at least 4 bytes must follow).
func hasMarker(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Bool {
    let marker = Marker.bytes
    return bytes[position] == marker.0 && bytes[position + 1] == marker.1 && bytes[position + 2] == marker.2 && bytes[position + 3] == marker.3
}

/// The marker, taken once from the library and checked against Docs/formats.md.
enum Marker {
    static let bytes: (UInt8, UInt8, UInt8, UInt8) = {
        let marker = JournalRecord.marker
        guard marker == [0xFF, 0x53, 0x44, 0x4C] else { fatalError("FuzzJournalRecord: the record marker is \(marker), not FF 53 44 4C") }
        return (marker[0], marker[1], marker[2], marker[3])
    }()
}

/// The payload range of an intact record at `position`, decided independently of the library.
func referenceRecord(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Range<Int>? {
    let header = JournalRecord.headerSize
    guard bytes.count - position >= header, hasMarker(bytes, at: position) else { return nil }
    let length = Int(readUInt32(bytes, position + 4))
    guard length <= JournalRecord.maxPayloadSize, length <= bytes.count - position - header else { return nil }
    let payload = (position + header)..<(position + header + length)
    let crc = ReferenceCRC32.checksum(bytes[payload], seed: ReferenceCRC32.checksum(bytes[(position + 4)..<(position + 8)]))
    return crc == readUInt32(bytes, position + 8) ? payload : nil
}

/// Rewrites the CRC of every marker-framed record whose length fits, left to right.
func fixUpChecksums(_ bytes: inout [UInt8]) {
    let header = JournalRecord.headerSize
    var position = 0
    while position + header <= bytes.count {
        guard bytes.withUnsafeBytes({ hasMarker($0, at: position) }) else {
            position += 1
            continue
        }
        let length = bytes.withUnsafeBytes { Int(readUInt32($0, position + 4)) }
        guard length <= JournalRecord.maxPayloadSize, length <= bytes.count - position - header else {
            position += 1
            continue
        }
        let crc = ReferenceCRC32.checksum(bytes[(position + header)..<(position + header + length)], seed: ReferenceCRC32.checksum(bytes[(position + 4)..<(position + 8)]))
        for index in 0..<4 { bytes[position + 8 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        position += header + length
    }
}

func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("FuzzJournalRecord invariant violated: \(message())") }
}

func checkScan(_ bytes: UnsafeRawBufferPointer) {
    let header = JournalRecord.headerSize
    let scan = JournalRecord.scan(bytes)
    let records = scan.records
    let damage = scan.damage

    // 1, 3: each record is inside the input and intact.
    for record in records {
        check(record.lowerBound >= header && record.upperBound <= bytes.count, "record \(record) outside 0..<\(bytes.count)")
        check(referenceRecord(bytes, at: record.lowerBound - header) == record, "record \(record) is not an intact record")
    }
    // 2, 4: extents and damage tile the input.
    enum Piece { case record(Range<Int>), damage(Range<Int>) }
    var pieces = records.map { Piece.record(($0.lowerBound - header)..<$0.upperBound) }
    pieces += damage.map { Piece.damage($0.offset..<($0.offset + max(0, $0.length))) }
    func range(_ piece: Piece) -> Range<Int> {
        switch piece {
        case .record(let range), .damage(let range): return range
        }
    }
    for run in damage { check(run.length > 0, "empty damage run at \(run.offset)") }
    pieces.sort { range($0).lowerBound < range($1).lowerBound }
    var cursor = 0
    var previousWasDamage = false
    for piece in pieces {
        let span = range(piece)
        check(span.lowerBound == cursor, "gap or overlap at \(cursor): next piece \(span)")
        cursor = span.upperBound
        if case .damage(let run) = piece {
            check(!previousWasDamage, "adjacent damage runs at \(run.lowerBound)")
            previousWasDamage = true
            // 5: nothing intact was skipped, and the reader resumed where it should.
            for position in run where position == run.lowerBound || bytes[position] == 0xFF {
                check(referenceRecord(bytes, at: position) == nil, "intact record at \(position) inside damage \(run)")
            }
            check(run.upperBound == bytes.count || bytes[run.upperBound] == 0xFF, "damage \(run) ends before a non-0xFF byte")
        } else {
            previousWasDamage = false
        }
    }
    check(cursor == bytes.count, "pieces end at \(cursor), input at \(bytes.count)")

    // 6: deterministic.
    let copy = Array(bytes)
    let again = copy.withUnsafeBytes { JournalRecord.scan($0) }
    check(again.records == records && again.damage.map(\.offset) == damage.map(\.offset) && again.damage.map(\.length) == damage.map(\.length), "a copy scans differently")

    // 7: re-framing round-trips.
    let payloads = records.map { Array(bytes[$0]) }
    var framed: [UInt8] = []
    for payload in payloads { JournalRecord.append(payload: payload, to: &framed) }
    let rescanned = framed.withUnsafeBytes { raw in
        let result = JournalRecord.scan(raw)
        return (result.records.map { Array(raw[$0]) }, result.damage.count)
    }
    check(rescanned.0 == payloads && rescanned.1 == 0, "re-framed payloads scan back differently")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournalRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    if size > 0, input[0] == 0x01 {
        var bytes = Array(input[1...])
        fixUpChecksums(&bytes)
        bytes.withUnsafeBytes { checkScan($0) }
    } else {
        checkScan(input)
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
/// `--defsym main=FuzzJournalRecord_main`, and `-parse-as-library` emits no entry point, so this one hands
/// over to libFuzzer, whose own `main` the defsym hides. scripts/fuzz.sh passes `-D SDL_LIBFUZZER`.
@_cdecl("FuzzJournalRecord_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzJournalRecord(data, size) }
}
#endif
