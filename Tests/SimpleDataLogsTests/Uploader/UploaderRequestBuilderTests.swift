import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: building a try of a batch", .stuckTestLimit)
struct UploaderRequestBuilderTests {
    static let key = "sdl_pub_0123456789abcdef"
    let url = URL(string: "https://edge.simpledatalogs.com/v1/events") ?? URL(fileURLWithPath: "/")
    var builder: UploadRequestBuilder { UploadRequestBuilder(eventsURL: url, ingestKey: Self.key, osName: "Linux", osVersion: "6.8.0") }
    let batchID = UUID(uuidString: "6F1C2B9E-8A4D-4F7E-9A51-2F0C7D3B1E55") ?? UUID()
    let payloads: [[UInt8]] = [Array(#"{"event":"a","event_id":"1","ts":5}"#.utf8), Array(#"{"event":"b","event_id":"2","ts":6,"props":{"x":"é"}}"#.utf8)]

    @Test("the body concatenates the sealed bytes without re-encoding them")
    func body() {
        let body = UploadRequestBuilder.body(payloads: payloads, sentAt: 1_764_670_000_123)
        #expect(String(decoding: body, as: UTF8.self) == #"{"sent_at":1764670000123,"events":[{"event":"a","event_id":"1","ts":5},{"event":"b","event_id":"2","ts":6,"props":{"x":"é"}}]}"#)
        #expect(String(decoding: UploadRequestBuilder.body(payloads: [], sentAt: 0), as: UTF8.self) == #"{"sent_at":0,"events":[]}"#)
    }

    @Test("the body is valid JSON that the ingest's shape accepts")
    func bodyParses() throws {
        let body = UploadRequestBuilder.body(payloads: UploaderFixture.realisticEvents(count: 20), sentAt: 1_796_205_600_000)
        let object = try JSONDecoder().decode(SentBody.self, from: Data(body))
        #expect(object.events.count == 20 && object.sentAt == 1_796_205_600_000)
    }

    @Test("the byte count matches the built body exactly, and the maximum covers any sent_at",
          arguments: [0, 1, 2, 50, 1_000])
    func byteCounts(eventCount: Int) {
        let events = UploaderFixture.realisticEvents(count: eventCount)
        for sentAt: Int64 in [0, 7, 1_796_205_600_000, Int64.max, Int64.min] {
            let body = UploadRequestBuilder.body(payloads: events, sentAt: sentAt)
            #expect(UploadRequestBuilder.bodyByteCount(payloadByteCounts: events.map(\.count), sentAt: sentAt) == body.count)
            #expect(UploadRequestBuilder.maximumBodyByteCount(payloadByteCounts: events.map(\.count)) >= body.count)
        }
        #expect(UploadRequestBuilder.maximumBodyByteCount(payloadByteCounts: events.map(\.count))
            == UploadRequestBuilder.body(payloads: events, sentAt: Int64.min).count)
    }

    @Test("adding events one by one sums to the whole body's size")
    func incremental() {
        let events = UploaderFixture.realisticEvents(count: 30)
        var size = UploadRequestBuilder.bodyByteCount(payloadByteCounts: [], sentAt: 1_796_205_600_000)
        for (index, event) in events.enumerated() {
            size += UploadRequestBuilder.addedByteCount(payloadByteCount: event.count, eventCount: index)
        }
        #expect(size == UploadRequestBuilder.body(payloads: events, sentAt: 1_796_205_600_000).count)
    }

    @Test("the headers are the contract's, with the batch id in lowercase")
    func headers() {
        let request = builder.request(batchID: batchID, payloads: payloads, sentAt: 1, gzip: false, timeout: .seconds(15))
        #expect(request.url == url && request.method == "POST" && request.timeout == .seconds(15))
        #expect(request.headers == [
            "Authorization": "Bearer \(Self.key)",
            "Content-Type": "application/json",
            "SDL-Batch-ID": "6f1c2b9e-8a4d-4f7e-9a51-2f0c7d3b1e55",
            "User-Agent": "simpledatalogs-swift/0.4.0 (Linux 6.8.0)",
        ])
        #expect(!request.isGzipped)
        #expect(request.body == Data(UploadRequestBuilder.body(payloads: payloads, sentAt: 1)))
    }

    @Test("every try of a batch carries the same batch id and events; only sent_at and compression change")
    func sameIDEveryTry() throws {
        let first = builder.request(batchID: batchID, payloads: payloads, sentAt: 1_000, gzip: true)
        let second = builder.request(batchID: batchID, payloads: payloads, sentAt: 9_000, gzip: false)
        #expect(first.header("sdl-batch-id") == second.header("SDL-Batch-ID"))
        let inflated = try #require(UploaderFixture.gunzip([UInt8](first.body)))
        #expect(String(decoding: inflated, as: UTF8.self).replacingOccurrences(of: "1000", with: "9000") == String(decoding: second.body, as: UTF8.self))
    }

    @Test("a gzip try says so and inflates to the plain body")
    func gzip() throws {
        let request = builder.request(batchID: batchID, payloads: payloads, sentAt: 1, gzip: true)
        #expect(request.header("content-encoding") == "gzip" && request.isGzipped)
        #expect(request.header("Content-Type") == "application/json")
        #expect(try #require(UploaderFixture.gunzip([UInt8](request.body))) == UploadRequestBuilder.body(payloads: payloads, sentAt: 1))
    }

    @Test("the User-Agent names the SDK version and this OS")
    func userAgent() {
        #expect(UploadRequestBuilder.userAgent(osName: "iOS", osVersion: "17.4") == "simpledatalogs-swift/0.4.0 (iOS 17.4)")
        let current = UploadRequestBuilder.currentOperatingSystem()
        #if os(Linux)
        #expect(current.name == "Linux")
        #endif
        #expect(current.version.split(separator: ".").count >= 2 && current.version.allSatisfy { $0.isNumber || $0 == "." })
    }

    @Test("the key appears only in the Authorization header, and the request's description for a log line can redact it")
    func keyOnlyInAuthorization() {
        let request = builder.request(batchID: batchID, payloads: payloads, sentAt: 1, gzip: false)
        #expect(request.headers.filter { $0.value.contains(Self.key) }.map(\.key) == ["Authorization"])
        #expect(!String(decoding: request.body, as: UTF8.self).contains(Self.key))
        #expect(!IngestKey.redacted(Self.key).contains(Self.key))
    }
}
