// libFuzzer target for the batch file reader, `BatchFile.decode` (Docs/formats.md; DESIGN.md section 7).
//
// Declarations only: a plain `swift build` links an empty program; a fuzz build
// (`-sanitize=fuzzer,address -parse-as-library`, scripts/fuzz.sh) gets libFuzzer's `main`.
//
// Input: the bytes of a batch file, decoded as they are.
//
// Invariants, beyond "no crash":
//  1. No header record (a payload starting `{"sdl_batch":`) is among the decoded payloads.
//  2. The decoded payloads are exactly the record scan's payloads minus the header records, in
//     order, and the damage is exactly the scan's damage.
//  3. Round trip: framing the payloads again with `JournalRecord.append` and decoding gives the
//     same payloads and no damage.
//  4. Round trip through the writer: `BatchFile.encode` of a batch with those payloads decodes to
//     the same payloads and no damage (the header it writes is dropped again).

import Foundation
import SimpleDataLogs

/// A header record's payload starts with this (Docs/formats.md), decided here independently.
enum BatchHeader {
    static let prefix = Array(#"{"sdl_batch":"#.utf8)
}

func isHeader(_ payload: some Collection<UInt8>) -> Bool { payload.starts(with: BatchHeader.prefix) }

func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("FuzzBatchFile invariant violated: \(message())") }
}

func sameDamage(_ lhs: [JournalRecord.Damage], _ rhs: [JournalRecord.Damage]) -> Bool {
    lhs.map(\.offset) == rhs.map(\.offset) && lhs.map(\.length) == rhs.map(\.length)
}

/// ``BatchFile/encode(_:)`` of a batch with a fixed id: a header record, then one per payload.
func encodeBatch(sequence: Int, path: String, payloads: [[UInt8]]) -> [UInt8] {
    let id = UUID(uuid: (0x01, 0x8F, 0x00, 0x00, 0x00, 0x00, 0x70, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01))
    return BatchFile.encode(SealedBatch(id: id, sequence: sequence, path: path, payloads: payloads))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatchFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let bytes = Array(input)
    let decoded = BatchFile.decode(bytes)

    // 1
    for (index, payload) in decoded.payloads.enumerated() {
        check(!isHeader(payload), "payload \(index) is a header record")
    }
    // 2
    let scan = JournalRecord.scan(input)
    let expected = scan.records.map { Array(input[$0]) }.filter { !isHeader($0) }
    check(decoded.payloads == expected, "payloads differ from the record scan's")
    check(sameDamage(decoded.damage, scan.damage), "damage differs from the record scan's")
    // 3
    var framed: [UInt8] = []
    for payload in decoded.payloads { JournalRecord.append(payload: payload, to: &framed) }
    let again = BatchFile.decode(framed)
    check(again.payloads == decoded.payloads, "re-framed payloads decode differently")
    check(again.damage.isEmpty, "re-framed payloads decode with damage \(again.damage)")
    // 4
    let encoded = encodeBatch(sequence: size, path: "r", payloads: decoded.payloads)
    let viaWriter = BatchFile.decode(encoded)
    check(viaWriter.payloads == decoded.payloads, "BatchFile.encode output decodes differently")
    check(viaWriter.damage.isEmpty, "BatchFile.encode output decodes with damage \(viaWriter.damage)")
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
/// `--defsym main=FuzzBatchFile_main`, and `-parse-as-library` emits no entry point, so this one hands
/// over to libFuzzer, whose own `main` the defsym hides. scripts/fuzz.sh passes `-D SDL_LIBFUZZER`.
@_cdecl("FuzzBatchFile_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzBatchFile(data, size) }
}
#endif
