/// An incremental HTTP/1.1 request parser: feed it bytes as they arrive, take requests out.
///
/// Pure (no I/O), so it is tested byte by byte without sockets, and it never traps on any
/// input: it will be a libFuzzer target. It handles keep-alive and pipelining (bytes after one
/// request stay buffered for the next) and bodies framed by `Content-Length`. A request with
/// `Transfer-Encoding` is refused with 501: the SDK always sends a length, and a test server that
/// guessed at chunked framing would hide client bugs.
struct HTTPRequestParser: Sendable {
    /// Caps that keep a hostile or broken client from growing the buffer without bound.
    struct Limits: Sendable, Equatable {
        /// The longest request head (request line and headers), terminator included.
        var maxHeadBytes = 32 * 1024
        /// The largest body accepted off the wire; larger ones fail with 413 before being read.
        var maxBodyBytes = 4 * 1024 * 1024
    }

    /// Why the byte stream is not a request we can read; the connection is answered and closed.
    enum Failure: Error, Sendable, Equatable {
        case malformedRequestLine
        case malformedHeader
        case unsupportedVersion
        case invalidContentLength
        case headTooLarge
        case bodyTooLarge
        case transferEncodingNotSupported

        /// The status to answer with.
        var status: Int {
            switch self {
            case .malformedRequestLine, .malformedHeader, .invalidContentLength: return 400
            case .unsupportedVersion: return 505
            case .headTooLarge: return 431
            case .bodyTooLarge: return 413
            case .transferEncodingNotSupported: return 501
            }
        }

        /// A sentence for the error body.
        var message: String {
            switch self {
            case .malformedRequestLine: return "malformed request line"
            case .malformedHeader: return "malformed header field"
            case .unsupportedVersion: return "only HTTP/1.0 and HTTP/1.1 are spoken here"
            case .invalidContentLength: return "invalid Content-Length"
            case .headTooLarge: return "request head too large"
            case .bodyTooLarge: return "body too large"
            case .transferEncodingNotSupported: return "Transfer-Encoding is not supported; send Content-Length"
            }
        }
    }

    /// What ``next()`` found.
    enum Step: Sendable, Equatable {
        /// Nothing complete yet; append more bytes.
        case needMoreData
        /// A request head is complete and its body has not all arrived: the moment to answer
        /// `Expect: 100-continue`. Reported once per request, and only when the body is pending.
        case head(HTTPRequestHead)
        /// A whole request.
        case request(HTTPRequest)
        /// The stream is broken; every later call returns the same failure.
        case failure(Failure)
    }

    private enum State: Sendable, Equatable {
        case awaitingHead
        case awaitingBody(HTTPRequestHead, announced: Bool)
        case failed(Failure)
    }

    let limits: Limits
    private var buffer: [UInt8] = []
    /// Bytes before this index are consumed; compacted lazily so pipelining stays linear.
    private var start = 0
    /// Where the search for the head terminator resumes, so a slow trickle is not rescanned.
    private var scanned = 0
    private var state = State.awaitingHead

    /// How many consumed bytes the buffer holds before ``append(_:)`` moves the rest to the front.
    let compactionThreshold: Int
    /// The ingest's threshold: 64 KiB, so a long keep-alive connection compacts rarely.
    static let defaultCompactionThreshold = 64 * 1024

    /// Creates a parser.
    /// - Parameters:
    ///   - limits: Head and body caps.
    ///   - compactionThreshold: Consumed bytes kept before compacting. The ingest uses the
    ///     default; the fuzz harness lowers it so a short stream reaches compaction.
    init(limits: Limits = Limits(), compactionThreshold: Int = Self.defaultCompactionThreshold) {
        self.limits = limits
        self.compactionThreshold = compactionThreshold
    }

    /// Whether no bytes of a next request have arrived: the connection is between requests.
    var isIdle: Bool { state == .awaitingHead && start == buffer.count }

    /// Adds bytes read from the connection.
    mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scanned = 0
            start = 0
        } else if start > compactionThreshold, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            scanned = max(0, scanned - start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Takes the next step out of the buffered bytes.
    mutating func next() -> Step {
        switch state {
        case .failed(let failure):
            return .failure(failure)
        case .awaitingHead:
            guard let headEnd = findHeadEnd() else {
                if buffer.count - start > limits.maxHeadBytes { return fail(.headTooLarge) }
                return .needMoreData
            }
            guard headEnd - start <= limits.maxHeadBytes else { return fail(.headTooLarge) }
            let head: HTTPRequestHead
            switch Self.parseHead(buffer[start..<(headEnd - 4)]) {
            case .success(let parsed): head = parsed
            case .failure(let failure): return fail(failure)
            }
            guard head.contentLength <= limits.maxBodyBytes else { return fail(.bodyTooLarge) }
            start = headEnd
            scanned = headEnd
            state = .awaitingBody(head, announced: false)
            return next()
        case .awaitingBody(let head, let announced):
            if buffer.count - start >= head.contentLength {
                let body = Array(buffer[start..<(start + head.contentLength)])
                start += head.contentLength
                scanned = start
                state = .awaitingHead
                return .request(HTTPRequest(head: head, body: body))
            }
            if !announced {
                state = .awaitingBody(head, announced: true)
                return .head(head)
            }
            return .needMoreData
        }
    }

    private mutating func fail(_ failure: Failure) -> Step {
        state = .failed(failure)
        buffer = []
        start = 0
        scanned = 0
        return .failure(failure)
    }

    /// The index just past `\r\n\r\n`, if the buffer holds one after `start`.
    private mutating func findHeadEnd() -> Int? {
        var index = max(start, scanned - 3)
        while index + 3 < buffer.count {
            if buffer[index] == 0x0D, buffer[index + 1] == 0x0A, buffer[index + 2] == 0x0D, buffer[index + 3] == 0x0A {
                return index + 4
            }
            index += 1
        }
        scanned = max(start, index)
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<HTTPRequestHead, Failure> {
        var lines = split(bytes)
        guard !lines.isEmpty else { return .failure(.malformedRequestLine) }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), !parts[1].isEmpty,
              parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformedRequestLine)
        }
        let version = parts[2]
        let minorVersion: Int
        if version.elementsEqual("HTTP/1.1".utf8) {
            minorVersion = 1
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            minorVersion = 0
        } else if version.starts(with: "HTTP/".utf8) {
            return .failure(.unsupportedVersion)
        } else {
            return .failure(.malformedRequestLine)
        }
        var headers: [(name: String, value: String)] = []
        var contentLength: Int?
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.malformedHeader) }
            let name = line[line.startIndex..<colon]
            // No space before the colon (RFC 9112 5.1) and no obsolete line folding.
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .failure(.malformedHeader) }
            let valueBytes = line[(colon + 1)...]
            guard !valueBytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return .failure(.malformedHeader) }
            let nameString = String(decoding: name, as: UTF8.self)
            let value = String(decoding: valueBytes, as: UTF8.self).trimmingSpaces
            switch nameString.lowercased() {
            case "content-length":
                guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(value) else {
                    return .failure(.invalidContentLength)
                }
                if let contentLength, contentLength != length { return .failure(.invalidContentLength) }
                contentLength = length
            case "transfer-encoding":
                return .failure(.transferEncodingNotSupported)
            default:
                break
            }
            headers.append((nameString, value))
        }
        return .success(HTTPRequestHead(
            method: String(decoding: parts[0], as: UTF8.self),
            target: String(decoding: parts[1], as: UTF8.self),
            minorVersion: minorVersion,
            headers: headers,
            contentLength: contentLength ?? 0
        ))
    }

    /// Splits the head at CRLF; a bare CR or LF inside a line is left for the byte checks to refuse.
    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A {
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        return lines
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
