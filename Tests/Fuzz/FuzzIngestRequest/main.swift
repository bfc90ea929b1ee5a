// libFuzzer target for the local ingest's incremental request parser, `HTTPRequestParser`, and the
// body validator and JSON parser behind it.
//
// Declarations only: a plain `swift build` links an empty program; a fuzz build
// (`-sanitize=fuzzer,address -parse-as-library`, scripts/fuzz.sh) gets libFuzzer's `main`.
//
// Input: 4 control bytes, then the byte stream a client sends on one connection.
//   byte 0     flags: bit 0 set = small limits (head cap 48 + (byte0 >> 1), body cap 16 + (byte0 >> 1));
//              clear = the parser's defaults (32 KiB head, 4 MiB body). Bits 1, 2 and 3 all set = a
//              long keep-alive connection: the stream is repeated to just over 2,100 bytes and the
//              parser compacts its buffer past 512 consumed bytes (the ingest's 64 KiB, scaled down:
//              a 70 KB stream parsed three times under coverage instrumentation cut the run to a
//              few hundred executions a second); it is then fed in chunks of 32 times the chunk
//              size below.
//   bytes 1-2  split point, little-endian, modulo (stream length + 1)
//   byte 3     chunk size for a third feeding: 1 + (byte3 % 16)
// Shorter inputs are read as if the missing control bytes were 0.
//
// Invariants, beyond "no crash":
//  1. The stream fed at once, split at the chosen point, and in chunks of the chosen size gives the
//     same requests, the same failure and the same final `isIdle` (heads announced for
//     `100-continue` depend on how bytes arrive, so they are compared by rule 3 instead).
//  2. A failure is the last step, and every later `next()` returns it again.
//  3. Every announced head is followed by the request with that head, or is the last step (its
//     body never arrived); fed at once, only the last step can be a head; fed byte by byte, every
//     request with a body is announced first.
//  4. Every request is well formed: a token method, a target without spaces or controls,
//     HTTP/1.0 or 1.1, header names without `:` or controls, `body.count == contentLength` within
//     the cap, and no more body bytes in total than the stream holds.
//  5. The ingest's JSON writer and parser agree: the quoted target, header values and body text
//     (as UTF-8 with replacements) and every failure's error body parse back to the same strings.
//  6. The validator accepts or refuses every request body without trapping.

import SimpleDataLogsTesting

/// The compaction threshold in long-connection mode (the ingest's is 64 KiB).
let compaction = 512

func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("FuzzIngestRequest invariant violated: \(message())") }
}

/// The outcome without `100-continue` announcements: what must not depend on chunking.
func essentials(_ outcome: IngestFuzzSupport.Outcome) -> ([IngestFuzzSupport.Step], Bool) {
    let steps = outcome.steps.filter {
        if case .head = $0 { return false }
        return true
    }
    return (steps, outcome.idle)
}

func chunks(_ stream: ArraySlice<UInt8>, size: Int) -> [ArraySlice<UInt8>] {
    stride(from: stream.startIndex, to: stream.endIndex, by: size).map { stream[$0..<min($0 + size, stream.endIndex)] }
}

func isToken(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

func checkSteps(_ outcome: IngestFuzzSupport.Outcome, feeding: String, streamCount: Int, maxBodyBytes: Int, byteByByte: Bool, roundTrips: Bool) {
    let steps = outcome.steps
    check(outcome.failureSticky, "\(feeding): a failure did not stick")
    var bodyBytes = 0
    for (index, step) in steps.enumerated() {
        let isLast = index == steps.count - 1
        switch step {
        case .failure(let status, let message):
            check(isLast, "\(feeding): failure \(status) is not the last step")
            check([400, 413, 431, 501, 505].contains(status), "\(feeding): unexpected status \(status)")
            if roundTrips { check(IngestFuzzSupport.errorBodyRoundTrips(message), "\(feeding): error body for \(message) does not parse back") }
        case .head(let method, let target, let contentLength):
            check(contentLength > 0, "\(feeding): head announced for a request without a body")
            if !isLast {
                guard case .request(let request) = steps[index + 1] else {
                    fatalError("FuzzIngestRequest invariant violated: \(feeding): head at step \(index) not followed by its request")
                }
                check(request.method == method && request.target == target && request.contentLength == contentLength,
                      "\(feeding): head at step \(index) announced a different request")
            }
        case .request(let request):
            check(isToken(request.method), "\(feeding): method \(request.method) is not a token")
            check(!request.target.isEmpty && request.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
                  "\(feeding): target \(request.target) has spaces or controls")
            check(request.minorVersion == 0 || request.minorVersion == 1, "\(feeding): version 1.\(request.minorVersion)")
            for header in request.headers {
                check(header.count == 2 && isToken(header[0]), "\(feeding): header name \(header) is not a token")
                check(!header[1].unicodeScalars.contains { $0 == "\r" || $0 == "\n" }, "\(feeding): header value \(header[1]) holds CR or LF")
            }
            check(request.body.count == request.contentLength, "\(feeding): body of \(request.body.count) bytes, Content-Length \(request.contentLength)")
            check(request.contentLength <= maxBodyBytes, "\(feeding): body of \(request.contentLength) bytes over the cap \(maxBodyBytes)")
            check(request.keepAlive || request.minorVersion == 0 || request.headers.contains { $0[0].lowercased() == "connection" },
                  "\(feeding): HTTP/1.1 without Connection is not keep-alive")
            if byteByByte, request.contentLength > 0 {
                guard index > 0, case .head(_, let target, _) = steps[index - 1], target == request.target else {
                    fatalError("FuzzIngestRequest invariant violated: \(feeding): request with a body at step \(index) was not announced")
                }
            }
            bodyBytes += request.body.count
        }
    }
    check(bodyBytes <= streamCount, "\(feeding): \(bodyBytes) body bytes from a stream of \(streamCount)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngestRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    func control(_ index: Int) -> Int { index < input.count ? Int(input[index]) : 0 }
    let flags = control(0)
    var stream = input.count > 4 ? input[4...] : []
    let longConnection = flags & 0x0E == 0x0E && !stream.isEmpty
    if longConnection {
        // Long-connection mode: the stream repeated past four compaction thresholds, so the
        // parser's buffer compaction runs, more than once when the stream is consumed.
        stream = ArraySlice(Array([ArraySlice<UInt8>](repeating: stream, count: 4 * compaction / stream.count + 1).joined()))
    }
    let small = flags & 1 == 1
    let maxHeadBytes = small ? 48 + (flags >> 1) : nil
    let maxBodyBytes = small ? 16 + (flags >> 1) : nil
    let bodyCap = maxBodyBytes ?? 4 * 1024 * 1024
    let split = stream.startIndex + (control(1) | (control(2) << 8)) % (stream.count + 1)
    // A long connection arrives in reads of 512 B to 8 KiB, which keeps the run fast.
    let chunkSize = (1 + control(3) % 16) * (longConnection ? 32 : 1)
    let threshold = longConnection ? compaction : nil

    let atOnce = IngestFuzzSupport.parse(
        chunks: [stream], maxHeadBytes: maxHeadBytes, maxBodyBytes: maxBodyBytes, compactionThreshold: threshold)
    let splitOnce = IngestFuzzSupport.parse(
        chunks: [stream[..<split], stream[split...]], maxHeadBytes: maxHeadBytes, maxBodyBytes: maxBodyBytes, compactionThreshold: threshold)
    let chunked = IngestFuzzSupport.parse(
        chunks: chunks(stream, size: chunkSize), maxHeadBytes: maxHeadBytes, maxBodyBytes: maxBodyBytes, compactionThreshold: threshold)

    // 2, 3, 4
    checkSteps(atOnce, feeding: "at once", streamCount: stream.count, maxBodyBytes: bodyCap, byteByByte: false, roundTrips: true)
    checkSteps(splitOnce, feeding: "split at \(split - stream.startIndex)", streamCount: stream.count, maxBodyBytes: bodyCap, byteByByte: false, roundTrips: false)
    checkSteps(chunked, feeding: "chunks of \(chunkSize)", streamCount: stream.count, maxBodyBytes: bodyCap, byteByByte: chunkSize == 1, roundTrips: false)
    for (index, step) in atOnce.steps.enumerated() {
        if case .head = step { check(index == atOnce.steps.count - 1, "at once: a head announced before the last step") }
    }
    // 1
    let reference = essentials(atOnce)
    let splitEssentials = essentials(splitOnce)
    check(splitEssentials.0 == reference.0 && splitEssentials.1 == reference.1,
          "split at \(split - stream.startIndex) parses differently from at once:\n\(splitOnce)\nvs\n\(atOnce)")
    let chunkedEssentials = essentials(chunked)
    check(chunkedEssentials.0 == reference.0 && chunkedEssentials.1 == reference.1,
          "chunks of \(chunkSize) parse differently from at once:\n\(chunked)\nvs\n\(atOnce)")

    // 5, 6 (a long connection repeats the short stream's requests, checked when the mode is off)
    for step in atOnce.steps where !longConnection {
        guard case .request(let request) = step else { continue }
        check(IngestFuzzSupport.quotedStringRoundTrips(request.target), "quoted target \(request.target) does not parse back")
        for header in request.headers {
            check(IngestFuzzSupport.quotedStringRoundTrips(header[1]), "quoted header value \(header[1]) does not parse back")
        }
        let text = String(decoding: request.body, as: UTF8.self)
        check(IngestFuzzSupport.quotedStringRoundTrips(text), "quoted body text does not parse back")
        let batchID = request.headers.first { $0[0].lowercased() == "sdl-batch-id" }?[1]
        let verdict = IngestFuzzSupport.validate(body: request.body, nowMilliseconds: 1_700_000_000_000, batchID: batchID)
        check(verdict.malformed != nil || verdict.verdicts > 0, "a well-formed batch with no verdicts")
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
/// `--defsym main=FuzzIngestRequest_main`, and `-parse-as-library` emits no entry point, so this one hands
/// over to libFuzzer, whose own `main` the defsym hides. scripts/fuzz.sh passes `-D SDL_LIBFUZZER`.
@_cdecl("FuzzIngestRequest_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzIngestRequest(data, size) }
}
#endif
