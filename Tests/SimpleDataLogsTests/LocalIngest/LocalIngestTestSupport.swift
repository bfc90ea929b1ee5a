import CZlib
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import SimpleDataLogs
import SimpleDataLogsTesting

/// Shared fixtures for the local ingest's tests: a fixed wall clock, request bodies, a
/// URLSession client and a raw-socket client.
enum IngestFixture {
    /// The wall clock every test ingest reads: 2026-12-02 10:00:00 UTC.
    static let nowMilliseconds: Int64 = 1_796_205_600_000

    /// One URLSession for the whole suite: a session per request costs fds and churns libcurl.
    static let session = URLSession(configuration: .ephemeral)

    /// Starts an ingest whose `ts` window is centred on ``nowMilliseconds``.
    static func ingest(_ configure: (inout LocalIngest.Configuration) -> Void = { _ in }) throws -> LocalIngest {
        var configuration = LocalIngest.Configuration(wallClock: SettableWallClock(Date(timeIntervalSince1970: Double(nowMilliseconds) / 1_000)))
        configure(&configuration)
        return try LocalIngest(configuration: configuration)
    }

    /// One event object as JSON text.
    static func event(_ name: String = "screenshot_taken", id: String = UUID().uuidString.lowercased(), ts: Int64 = nowMilliseconds, extra: String = "") -> String {
        "{\"event\":\"\(name)\",\"event_id\":\"\(id)\",\"ts\":\(ts)\(extra.isEmpty ? "" : "," + extra)}"
    }

    /// A request body around event objects.
    static func body(_ events: [String], sentAt: Int64 = nowMilliseconds + 5) -> Data {
        Data("{\"sent_at\":\(sentAt),\"events\":[\(events.joined(separator: ","))]}".utf8)
    }

    /// Gzips `data` with zlib (window bits 15 + 16 write a gzip header).
    static func gzip(_ data: Data) -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return Data() }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 64)
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                _ = deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Data(output[0..<produced])
    }

    /// A response as URLSession delivered it.
    struct Answer {
        var status: Int
        /// The body decoded; all fields nil when it is not a JSON object of the answer's shape.
        var body: IngestAnswerBody
        var response: HTTPURLResponse
    }

    /// POSTs `body` to the ingest's `/v1/events` with the contract's headers, each overridable
    /// (a `nil` value removes the header).
    static func post(_ ingest: LocalIngest, _ body: Data, path: String = "/v1/events", headers: [String: String?] = [:]) async throws -> Answer {
        var request = URLRequest(url: ingest.endpoint.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        var all: [String: String?] = ["Authorization": "Bearer sdl_pub_test0001", "Content-Type": "application/json"]
        all.merge(headers) { $1 }
        for (name, value) in all {
            if let value { request.setValue(value, forHTTPHeaderField: name) }
        }
        let (data, response) = try await session.upload(for: request, from: body)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        let body = (try? JSONDecoder().decode(IngestAnswerBody.self, from: data)) ?? IngestAnswerBody()
        return Answer(status: http.statusCode, body: body, response: http)
    }
}

extension IngestFixture {
    /// Runs blocking work (raw socket calls) on a thread of its own, so that no thread of Swift's
    /// cooperative pool is blocked while the server under test answers.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            thread.start()
        }
    }
}

/// A blocking HTTP/1.1 client on one TCP connection, for what URLSession hides: keep-alive on one
/// socket, `Expect: 100-continue`, pipelining, and connections closed without an answer.
final class RawConnection {
    /// One parsed response.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    enum Failure: Error, Equatable { case connect, closedBeforeResponse, timeout }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int, host: String = "127.0.0.1") throws {
        descriptor = try Self.connected(port: port, host: host)
    }

    deinit { close(descriptor) }

    /// A socket connected to `host`:`port`; on failure it is closed here and nothing is stored.
    ///
    /// Why not open it into `descriptor` and close it when `connect` fails: a class whose stored
    /// properties are all set when its initializer throws is released, so `deinit` runs and closes
    /// the number again. By then another thread of this process may have been given that number
    /// for its own socket, which the second close then destroys (an ingest's connection, reset
    /// with a request unread; a stop socket, and `stop()` never returns).
    private static func connected(port: Int, host: String) throws -> Int32 {
        var target = in_addr()
        guard inet_pton(AF_INET, host, &target) == 1 else { throw Failure.connect }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.connect }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr = target
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure.connect
        }
        return descriptor
    }

    /// The head of a POST to `path` with the contract's headers plus `extra` lines.
    static func head(path: String = "/v1/events", bodyLength: Int, extra: [String] = []) -> String {
        (["POST \(path) HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer sdl_pub_test0001",
          "Content-Type: application/json", "Content-Length: \(bodyLength)"] + extra).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// A whole POST: head and body.
    static func post(_ body: Data, path: String = "/v1/events", extra: [String] = []) -> [UInt8] {
        Array(head(path: path, bodyLength: body.count, extra: extra).utf8) + [UInt8](body)
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Reads one response (a `100 Continue` counts as one).
    func readResponse() throws -> Response {
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() where line.contains(":") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers[parts[0].lowercased()] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while buffer.count < end + 4 + length { try fill() }
                let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            try fill()
        }
    }

    /// Whether the server closed the connection (end of stream or reset) rather than sending bytes.
    func isClosedByServer() -> Bool {
        do { try fill(); return false } catch { return (error as? Failure) == .closedBeforeResponse }
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[0..<count]
        } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
            throw Failure.timeout
        } else {
            throw Failure.closedBeforeResponse
        }
    }
}
