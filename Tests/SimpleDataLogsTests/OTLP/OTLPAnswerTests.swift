import Foundation
import Testing
@testable import SimpleDataLogs
@testable import SimpleDataLogsOTLP

/// The collector's answers restated for the uploader, checked all the way to the action the SDK's
/// own answer policy takes on them: synchronous, no sockets.
@Suite("OTLP transport: the collector's answers, as the uploader reads them")
struct OTLPAnswerTests {
    static let now = Date(timeIntervalSince1970: 1_796_205_600) // Wed, 02 Dec 2026 10:00:00 GMT

    /// What the uploader does with the collector's answer to an export of `events` events.
    static func action(_ status: Int, _ body: String = "", headers: [String: String] = [:], events: Int = 10, gzipped: Bool = true) -> AnswerPolicy.Action {
        let collector = UploadResponse(status: status, headers: headers, body: Data(body.utf8))
        let ingest = OTLPAnswer.ingestResponse(for: collector, eventCount: events)
        return AnswerPolicy.action(for: .answered(ingest), attempt: .init(wasGzipped: gzipped, eventCount: events), now: now)
    }

    static func rejections(_ action: AnswerPolicy.Action) -> [Rejection]? {
        if case .delete(let rejected) = action { return rejected }
        return nil
    }

    @Test("200 with no partialSuccess, an empty one, an empty body or an unreadable one: every event delivered", arguments: [
        "", "{}", #"{"partialSuccess":{}}"#, #"{"partialSuccess":{"rejectedLogRecords":"0","errorMessage":"a warning only"}}"#, "<html>",
    ])
    func fullSuccess(body: String) {
        #expect(Self.action(200, body) == .delete(rejected: []))
    }

    @Test("a 2xx other than 200 is taken as success too: the collector took the export, and resending would duplicate it")
    func otherSuccess() {
        #expect(Self.action(202, "") == .delete(rejected: []))
        #expect(Self.action(204, "") == .delete(rejected: []))
    }

    @Test("200 with partialSuccess: that many rejections, with no index and no event id, and the collector's message (an int64 string or a number)")
    func partialSuccess() throws {
        for body in [#"{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"too old"}}"#,
                     #"{"partialSuccess":{"rejectedLogRecords":3,"errorMessage":"too old"}}"#] {
            let rejected = try #require(Self.rejections(Self.action(200, body)))
            #expect(rejected.count == 3)
            #expect(rejected.allSatisfy { $0.index == nil && $0.eventID == nil })
            #expect(rejected.allSatisfy { $0.reason.contains("rejected 3 of 10 log records") && $0.reason.hasSuffix("too old") })
        }
        let silent = try #require(Self.rejections(Self.action(200, #"{"partialSuccess":{"rejectedLogRecords":"1"}}"#)))
        #expect(silent.count == 1 && silent.first?.reason.hasSuffix("no errorMessage") == true)
    }

    @Test("a rejected count over the export's size is capped at it; a negative one is none")
    func cappedCount() {
        #expect(Self.rejections(Self.action(200, #"{"partialSuccess":{"rejectedLogRecords":"50"}}"#))?.count == 10)
        #expect(Self.rejections(Self.action(200, #"{"partialSuccess":{"rejectedLogRecords":"-4"}}"#))?.count == 0)
    }

    @Test("400 sets the batch aside with the Status message")
    func badData() {
        let action = Self.action(400, #"{"code":3,"message":"ReadObject: invalid field"}"#)
        #expect(action == .setAside(reason: .malformedBody(message: "the OpenTelemetry collector answered 400: ReadObject: invalid field")))
        #expect(Self.action(400, "plain text\nsecond line") == .setAside(reason: .malformedBody(message: "the OpenTelemetry collector answered 400: plain text")))
    }

    @Test("429, 502, 503 and 504 back off, at least as long as Retry-After says (seconds or an HTTP-date)", arguments: [429, 502, 503, 504])
    func throttled(status: Int) {
        #expect(Self.action(status, #"{"code":8,"message":"slow down"}"#, headers: ["Retry-After": "120"]) == .backOff(retryAfter: .seconds(120)))
        #expect(Self.action(status, "", headers: ["retry-after": "Wed, 02 Dec 2026 10:02:00 GMT"]) == .backOff(retryAfter: .seconds(120)))
        #expect(Self.action(status) == .backOff(retryAfter: nil))
    }

    @Test("401, 413 and 415 mean what they mean to the ingest: pause for the key, split, resend uncompressed or set aside")
    func sdkTable() {
        #expect(Self.action(401) == .pauseForKey)
        #expect(Self.action(413, events: 10) == .split)
        #expect(Self.action(415, gzipped: true) == .resendUncompressed)
        #expect(Self.action(415, #"{"message":"no"}"#, gzipped: false) == .setAside(reason: .unsupportedMediaType(message: "the OpenTelemetry collector answered 415: no")))
    }

    @Test("any other status backs off and keeps the batch (OTLP would drop it; the SDK keeps events an operator can still save)", arguments: [500, 404, 403, 307, 100])
    func otherStatuses(status: Int) {
        #expect(Self.action(status) == .backOff(retryAfter: nil))
    }

    @Test("the restated answer carries only Content-Type and Retry-After, whatever the collector sent")
    func headers() {
        let collector = UploadResponse(status: 503, headers: ["Retry-After": "7", "Content-Encoding": "gzip", "Set-Cookie": "x"], body: Data())
        #expect(OTLPAnswer.ingestResponse(for: collector, eventCount: 1).headers == ["Content-Type": "application/json", "Retry-After": "7"])
    }
}
