import Foundation
import Testing
import SimpleDataLogs
import SimpleDataLogsTesting

/// The collector stand-in answers as an OTLP/HTTP receiver would, over real HTTP.
@Suite("LocalCollector: a collector stand-in on 127.0.0.1", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct LocalCollectorTests {
    static func send(_ collector: LocalCollector, path: String = "/v1/logs", contentType: String = "application/json", gzip: Bool = false, body: String) async throws -> UploadResponse {
        var headers = ["Content-Type": contentType]
        var bytes = Data(body.utf8)
        if gzip, let compressed = Gzip.compress(Array(bytes)) {
            bytes = Data(compressed)
            headers["Content-Encoding"] = "gzip"
        }
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        return try await transport.send(UploadRequest(url: collector.endpoint.appendingPathComponent(String(path.dropFirst())), headers: headers, body: bytes))
    }

    static let export = #"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{},{}]},{"logRecords":[{}]}]}]}"#

    @Test("a JSON export at /v1/logs, gzip or not, is recorded, its records counted, and answered 200 with an empty partialSuccess")
    func accepts() async throws {
        let collector = try LocalCollector()
        defer { collector.stop() }
        for gzip in [false, true] {
            let answer = try await Self.send(collector, gzip: gzip, body: Self.export)
            #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self) == #"{"partialSuccess":{}}"#)
        }
        #expect(collector.acceptedLogRecords == 6)
        #expect(collector.requests.map(\.logRecordCount) == [3, 3])
        #expect(collector.requests.allSatisfy { String(decoding: $0.body, as: UTF8.self) == Self.export }, "bodies recorded inflated")
    }

    @Test("another path is 404, protobuf is 415, a body that is no JSON object is 400, each with a Status body; nothing is counted")
    func refuses() async throws {
        let collector = try LocalCollector()
        defer { collector.stop() }
        #expect(try await Self.send(collector, path: "/v1/traces", body: Self.export).status == 404)
        #expect(try await Self.send(collector, contentType: "application/x-protobuf", body: Self.export).status == 415)
        let bad = try await Self.send(collector, body: "{not json")
        #expect(bad.status == 400)
        #expect(String(decoding: bad.body, as: UTF8.self).hasPrefix(#"{"code":3,"message":"the body is not JSON"#))
        #expect(collector.acceptedLogRecords == 0)
    }

    @Test("the script answers first: a failure with Retry-After and a Status body, then a partial success, then 200s again")
    func script() async throws {
        let collector = try LocalCollector()
        defer { collector.stop() }
        collector.script([.status(503, retryAfter: "7", message: "busy"), .partialSuccess(rejected: 1, message: "too old")])
        let busy = try await Self.send(collector, body: Self.export)
        #expect(busy.status == 503 && busy.header("Retry-After") == "7")
        #expect(String(decoding: busy.body, as: UTF8.self) == #"{"code":14,"message":"busy"}"#)
        let partial = try await Self.send(collector, body: Self.export)
        #expect(partial.status == 200)
        #expect(String(decoding: partial.body, as: UTF8.self) == #"{"partialSuccess":{"rejectedLogRecords":"1","errorMessage":"too old"}}"#)
        #expect(try await Self.send(collector, body: Self.export).status == 200)
        #expect(collector.acceptedLogRecords == 2 + 3)
        #expect(collector.requests.map(\.status) == [503, 200, 200])
    }
}
