import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// Answers that do not add up, and a `Retry-After` against `flush()`, on the state machine alone
/// (issue 23's smaller uploader items). The fixtures are ``UploaderStateMachineTests``'s.
@Suite("Uploader: answers that do not add up, and flush under Retry-After", .stuckTestLimit)
struct UploaderAnswerRulesTests {
    typealias Fixture = UploaderStateMachineTests

    static func accepted(_ body: String) -> AnswerPolicy.Outcome {
        .answered(UploadResponse(status: 202, body: Data(body.utf8)))
    }

    @Test("a 202 listing more rejections than the batch has events: clamped to the batch, one warning, never a negative count")
    func moreRejectionsThanEvents() throws {
        var machine = Fixture.machine()
        let batch = Fixture.batch(0, events: 2)
        let four = (0..<4).map { #"{"index":\#($0),"event_id":"e\#($0)","reason":"bad"}"# }.joined(separator: ",")
        let step = Fixture.answer(&machine, Self.accepted(#"{"accepted":0,"duplicates":0,"rejected":[\#(four)]}"#), for: batch, at: Fixture.start)
        #expect(step.actions.first == .markDelivered(batch.id, rejected: 2))
        guard case .publish(.delivered(_, let delivered, let rejected))? = step.actions.last else {
            Issue.record("no delivery report: \(step.actions)")
            return
        }
        #expect(delivered == 0 && rejected.count == 2, "delivered \(delivered), rejected \(rejected.count)")
        #expect(Fixture.logs(step.actions).contains { $0.0 == .warning && $0.1.contains("4 rejections for 2 events") })
        // A second such answer is counted the same way, without a second line.
        let again = Fixture.answer(&machine, Self.accepted(#"{"rejected":[\#(four)]}"#), for: Fixture.batch(1, events: 2), at: Fixture.start)
        #expect(Fixture.logs(again.actions).filter { $0.1.contains("rejections for") }.isEmpty)
    }

    @Test("a 202 whose body cannot be read (gzip bytes with no header, or a body the library failed to decode) is delivery with one line")
    func unreadableAcceptedBody() {
        var machine = Fixture.machine()
        let batch = Fixture.batch(0, events: 3)
        // The bytes of a gzip stream: what a client reads when the header that says so is missing.
        let gzipped = Data([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0xae, 0x05, 0x00, 0x43, 0xbf, 0xa6, 0xa3, 0x02, 0x00, 0x00, 0x00])
        let step = Fixture.answer(&machine, .answered(UploadResponse(status: 202, body: gzipped)), for: batch, at: Fixture.start)
        #expect(step.actions.first == .markDelivered(batch.id, rejected: 0))
        #expect(step.actions.last == .publish(.delivered(batchID: batch.id, delivered: 3, rejected: [])))
        #expect(Fixture.logs(step.actions).filter { $0.0 == .warning && $0.1.contains("could not be read") }.count == 1)
        let again = Fixture.answer(&machine, .answered(UploadResponse(status: 202, body: gzipped)), for: Fixture.batch(1), at: Fixture.start)
        #expect(Fixture.logs(again.actions).filter { $0.1.contains("could not be read") }.isEmpty, "once per client")
        // An empty body is a tally with nothing to say, not an unreadable one.
        let empty = Fixture.answer(&machine, .answered(UploadResponse(status: 202)), for: Fixture.batch(2), at: Fixture.start)
        #expect(Fixture.logs(empty.actions).isEmpty)
    }

    @Test("a flush does not start a pass while a Retry-After holds; it does during a backoff without one, and after the Retry-After")
    func flushUnderRetryAfter() throws {
        var machine = Fixture.machine()
        let batch = Fixture.batch(0)
        _ = Fixture.answer(&machine, Fixture.status(429, headers: ["Retry-After": "120"]), for: batch, at: Fixture.start)
        #expect(!Fixture.starts(&machine, .flush(lastChance: false), at: Fixture.start.advanced(by: .seconds(60))))
        #expect(!Fixture.starts(&machine, .flush(lastChance: true), at: Fixture.start.advanced(by: .seconds(60))), "not even a last chance")
        #expect(Fixture.starts(&machine, .flush(lastChance: false), at: Fixture.start.advanced(by: .seconds(120))))

        // A backoff the client chose (no Retry-After) still gives way to a flush.
        var other = Fixture.machine()
        _ = Fixture.answer(&other, Fixture.status(503), for: batch, at: Fixture.start)
        #expect(Fixture.starts(&other, .flush(lastChance: false), at: Fixture.start))
    }
}
