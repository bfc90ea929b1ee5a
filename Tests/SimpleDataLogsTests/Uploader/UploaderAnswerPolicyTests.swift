import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: what each answer means", .stuckTestLimit)
struct UploaderAnswerPolicyTests {
    let now = UploaderFixture.now
    let plain = AnswerPolicy.Attempt(wasGzipped: false, eventCount: 10)
    let gzipped = AnswerPolicy.Attempt(wasGzipped: true, eventCount: 10)

    func answer(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> AnswerPolicy.Outcome {
        .answered(UploadResponse(status: status, headers: headers, body: Data(body.utf8)))
    }

    func action(_ outcome: AnswerPolicy.Outcome, _ attempt: AnswerPolicy.Attempt? = nil) -> AnswerPolicy.Action {
        AnswerPolicy.action(for: outcome, attempt: attempt ?? plain, now: now)
    }

    @Test("202 deletes, with the rejected events listed in order")
    func accepted() {
        let body = #"{"accepted":1,"duplicates":0,"rejected":[{"index":1,"event_id":"bad","reason":"event: empty"},{"index":3,"event_id":"worse","reason":"ts: out of window"}]}"#
        #expect(action(answer(202, body)) == .delete(rejected: [
            Rejection(index: 1, eventID: "bad", reason: "event: empty"),
            Rejection(index: 3, eventID: "worse", reason: "ts: out of window"),
        ]))
        #expect(action(answer(202, #"{"accepted":2,"duplicates":0,"rejected":[]}"#)) == .delete(rejected: []))
    }

    @Test("202 with an empty, unparseable or odd body still deletes", arguments: ["", "not json", "[]", #"{"rejected":"x"}"#, #"{"accepted":"#])
    func acceptedOddBody(body: String) {
        #expect(action(answer(202, body)) == .delete(rejected: []))
    }

    @Test("a rejection entry with missing or mistyped fields is kept with what is known")
    func lenientRejections() {
        let body = #"{"rejected":[{"index":"one","reason":"not an object"},{"event_id":"x"}]}"#
        #expect(action(answer(202, body)) == .delete(rejected: [
            Rejection(index: nil, eventID: nil, reason: "not an object"),
            Rejection(index: nil, eventID: "x", reason: "unspecified"),
        ]))
    }

    @Test("401 pauses for the key, gzipped or not, whatever the body")
    func unauthorized() {
        #expect(action(answer(401, #"{"error":"unknown key"}"#)) == .pauseForKey)
        #expect(action(answer(401), gzipped) == .pauseForKey)
    }

    @Test("413 splits a batch of several events and drops a single event over the contract's limit", arguments: [(2, true), (1000, true), (1, false), (0, false)])
    func tooLarge(eventCount: Int, splits: Bool) {
        let attempt = AnswerPolicy.Attempt(wasGzipped: true, eventCount: eventCount, bodyBytes: 300_000)
        #expect(action(answer(413, #"{"error":"body over 262144 bytes"}"#), attempt) == (splits ? .split : .dropTooLarge))
    }

    @Test("413 to a single event within the contract's 256 KiB came from something in between (a proxy): kept and retried, never dropped")
    func tooLargeForAProxy() {
        let fits = AnswerPolicy.Attempt(wasGzipped: false, eventCount: 1, bodyBytes: 3_100)
        #expect(action(answer(413, "<html>413 Request Entity Too Large</html>"), fits) == .backOff(retryAfter: nil))
        let atTheLimit = AnswerPolicy.Attempt(wasGzipped: false, eventCount: 1, bodyBytes: 262_144)
        #expect(action(answer(413), atTheLimit) == .backOff(retryAfter: nil))
    }

    @Test("415 to a gzip body resends uncompressed; 415 to a plain body sets the batch aside (clarified)")
    func unsupportedMedia() {
        #expect(action(answer(415, #"{"error":"unsupported Content-Encoding"}"#), gzipped) == .resendUncompressed)
        #expect(action(answer(415, #"{"error":"unsupported Content-Type"}"#), plain) == .setAside(reason: .unsupportedMediaType(message: "unsupported Content-Type")))
        #expect(action(answer(415, "<html>"), plain) == .setAside(reason: .unsupportedMediaType(message: nil)))
    }

    @Test("400 sets the batch aside, keeping the edge's message on one line (clarified)")
    func badRequest() {
        #expect(action(answer(400, #"{"error":"no sent_at"}"#)) == .setAside(reason: .malformedBody(message: "no sent_at")))
        #expect(action(answer(400, #"{"error":"line one\nline two"}"#), gzipped) == .setAside(reason: .malformedBody(message: "line one line two")))
        #expect(action(answer(400)) == .setAside(reason: .malformedBody(message: nil)))
    }

    @Test("everything else backs off, with Retry-After when given", arguments: [429, 500, 502, 503, 504, 404, 403, 408, 409, 200, 201, 204, 301, 307, 100, 999])
    func otherStatuses(status: Int) {
        #expect(action(answer(status)) == .backOff(retryAfter: nil))
        #expect(action(answer(status, headers: ["Retry-After": "30"])) == .backOff(retryAfter: .seconds(30)))
    }

    @Test("Retry-After is found whatever its case, read as a date too, and ignored when garbage")
    func retryAfterForms() {
        #expect(action(answer(429, headers: ["retry-after": "5"])) == .backOff(retryAfter: .seconds(5)))
        #expect(action(answer(503, headers: ["RETRY-AFTER": "Wed, 02 Dec 2026 10:01:00 GMT"])) == .backOff(retryAfter: .seconds(60)))
        #expect(action(answer(503, headers: ["Retry-After": "later"])) == .backOff(retryAfter: nil))
    }

    @Test("no answer backs off without Retry-After, whatever the failure", arguments: [TransportError.Kind.cannotConnect, .timedOut, .cancelled, .other])
    func failures(kind: TransportError.Kind) {
        #expect(action(.failed(TransportError(kind, message: "x")), gzipped) == .backOff(retryAfter: nil))
    }
}
