import Foundation
import Testing
@testable import SimpleDataLogsTesting

@Suite("The local ingest's HTTP request parser", .stuckTestLimit, .skippedInFastLoop)
struct LocalIngestHTTPRequestParserTests {
    private func request(_ text: String, body: String = "") -> [UInt8] {
        Array((text + body).utf8)
    }

    @Test("a request fed one byte at a time comes out whole, once")
    func byteByByte() {
        var parser = HTTPRequestParser()
        let bytes = request("POST /v1/events?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nSDL-Batch-ID: b1\r\n\r\n", body: "hello")
        var requests: [HTTPRequest] = []
        var heads = 0
        for byte in bytes {
            parser.append([byte])
            loop: while true {
                switch parser.next() {
                case .needMoreData: break loop
                case .head: heads += 1
                case .request(let request): requests.append(request)
                case .failure(let failure): Issue.record("failed: \(failure)"); return
                }
            }
        }
        #expect(requests.count == 1)
        #expect(heads == 1, "the head is announced once while the body is pending")
        #expect(requests.first?.head.path == "/v1/events")
        #expect(requests.first?.head.header("sdl-batch-id") == "b1")
        #expect(requests.first?.body == Array("hello".utf8))
        #expect(parser.isIdle)
    }

    @Test("pipelined requests in one read come out in order, with no head step when the body is there")
    func pipelining() {
        var parser = HTTPRequestParser()
        parser.append(request("POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nab") + request("GET /b HTTP/1.1\r\n\r\n"))
        guard case .request(let first) = parser.next(), case .request(let second) = parser.next() else {
            Issue.record("expected two requests")
            return
        }
        #expect(first.head.path == "/a" && first.body == Array("ab".utf8))
        #expect(second.head.method == "GET" && second.body.isEmpty)
        #expect(parser.next() == .needMoreData)
    }

    @Test("a long keep-alive connection, past the compaction threshold, parses every request in order", arguments: [nil, 512] as [Int?])
    func longConnectionCompacts(threshold: Int?) {
        var parser = threshold.map { HTTPRequestParser(compactionThreshold: $0) } ?? HTTPRequestParser()
        // 2,000 requests of about 60 bytes: 120 KB, nearly twice the ingest's 64 KiB threshold.
        let stream = (0..<2_000).flatMap { index in
            request("POST /r\(index) HTTP/1.1\r\nContent-Length: 4\r\n\r\n", body: String(format: "%04d", index % 10_000))
        }
        var paths: [String] = []
        // Reads of 1,000 bytes, which end mid-request, so a partial request is moved by compaction.
        for start in stride(from: 0, to: stream.count, by: 1_000) {
            parser.append(stream[start..<min(start + 1_000, stream.count)])
            loop: while true {
                switch parser.next() {
                case .needMoreData: break loop
                case .head: continue
                case .request(let request):
                    #expect(request.body == Array(String(format: "%04d", paths.count).utf8))
                    paths.append(request.head.path)
                case .failure(let failure): Issue.record("failed: \(failure)"); return
                }
            }
        }
        #expect(paths == (0..<2_000).map { "/r\($0)" })
        #expect(parser.isIdle)
    }

    @Test("keep-alive follows the version and the Connection header; Expect: 100-continue is seen")
    func connectionSemantics() {
        var parser = HTTPRequestParser()
        parser.append(request("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n"))
        guard case .head(let head) = parser.next() else { Issue.record("expected the head"); return }
        #expect(head.expectsContinue && head.keepAlive)
        var closing = HTTPRequestParser()
        closing.append(request("GET / HTTP/1.1\r\nConnection: close\r\n\r\nGET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"))
        let keepAlive = (0..<3).compactMap { _ -> Bool? in
            if case .request(let request) = closing.next() { return request.head.keepAlive }
            return nil
        }
        #expect(keepAlive == [false, false, true])
    }

    @Test("broken requests fail with the status to answer", arguments: [
        ("\u{0}\u{FF} garbage \r\n\r\n", 400),
        ("POST /v1/events HTTP/2.0\r\n\r\n", 505),
        ("POST /v1/events HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("POST /v1/events HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST /v1/events HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400),
        ("POST /v1/events HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n", 413),
        ("POST /v1/events HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("POST /v1/events HTTP/1.1\r\nBad Header: x\r\n\r\n", 400),
        ("POST /v1/events HTTP/1.1\r\n folded: x\r\n\r\n", 400),
        ("POST  /v1/events HTTP/1.1\r\n\r\n", 400),
    ])
    func failures(text: String, status: Int) {
        var parser = HTTPRequestParser()
        parser.append(Array(text.utf8))
        guard case .failure(let failure) = parser.next() else { Issue.record("accepted \(text.debugDescription)"); return }
        #expect(failure.status == status)
        #expect(parser.next() == .failure(failure), "a failed parser stays failed")
    }

    @Test("a head that never ends is refused once it passes the cap")
    func headTooLarge() {
        var parser = HTTPRequestParser(limits: .init(maxHeadBytes: 1_024))
        parser.append(Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 2_000))
        #expect(parser.next() == .failure(.headTooLarge))
    }

    @Test("ten thousand random and mutated inputs never trap", .tags(.burst))
    func randomInputs() {
        var generator = SplitMix64(seed: 42)
        let valid = Array("POST /v1/events HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc".utf8)
        for round in 0..<10_000 {
            var bytes = valid
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            var parser = HTTPRequestParser(limits: .init(maxHeadBytes: 64, maxBodyBytes: 16))
            var offset = 0
            while offset < bytes.count {
                let step = 1 + Int(generator.next() % 7)
                parser.append(bytes[offset..<min(bytes.count, offset + step)])
                offset += step
                for _ in 0..<4 where parser.next() != .needMoreData {}
            }
        }
    }
}
