import Foundation
import SimpleDataLogs
import Testing
@testable import SimpleDataLogsTesting

@Suite("The local ingest's body and event rules", .stuckTestLimit)
struct LocalIngestValidatorTests {
    private let now = IngestFixture.nowMilliseconds

    private func validate(_ events: [String], sentAt: String = "1") -> IngestValidator.Outcome {
        validate(text: "{\"sent_at\":\(sentAt),\"events\":[\(events.joined(separator: ","))]}")
    }

    private func validate(text: String) -> IngestValidator.Outcome {
        IngestValidator.validate(body: Array(text.utf8), nowMilliseconds: now, batchID: "b")
    }

    private func rejectedIndexes(_ outcome: IngestValidator.Outcome) -> [Int] {
        guard case .batch(_, let verdicts) = outcome else { return [-1] }
        return verdicts.compactMap { if case .rejected(let rejection) = $0 { return rejection.index } else { return nil } }
    }

    @Test("a full event comes out typed, with the batch id and sent_at")
    func fullEvent() throws {
        let event = IngestFixture.event(id: "e1", extra: #""device_id":"d","session_id":"s","app_state":"background","engaged_ms":412,"props":{"s":"x","i":3,"f":0.5,"b":true,"big":9223372036854775807}"#)
        guard case .batch(let sentAt, let verdicts) = validate([event], sentAt: "77"), case .valid(let received)? = verdicts.first else {
            Issue.record("not accepted")
            return
        }
        #expect(sentAt == 77)
        #expect(received == ReceivedEvent(
            name: "screenshot_taken", eventID: "e1", timestamp: now, deviceID: "d", sessionID: "s", appState: "background",
            engagedMilliseconds: 412, properties: ["s": .string("x"), "i": .int(3), "f": .double(0.5), "b": .bool(true), "big": .int(.max)],
            batchID: "b", sentAt: 77
        ))
    }

    @Test("a body that is not the contract's shape is a 400", arguments: [
        "not json", "[]", #"{"events":[{}]}"#, #"{"sent_at":1}"#, #"{"sent_at":1,"events":[]}"#, #"{"sent_at":"1","events":[{}]}"#,
        #"{"sent_at":1.5,"events":[{}]}"#, #"{"sent_at":1,"events":{}}"#,
    ])
    func malformed(text: String) {
        guard case .malformed(let message) = validate(text: text) else { Issue.record("accepted \(text)"); return }
        #expect(!message.isEmpty)
    }

    @Test("1,000 events are a batch, 1,001 are a 400")
    func eventCount() {
        let event = IngestFixture.event(id: "same")
        #expect(rejectedIndexes(validate(Array(repeating: event, count: 1_000))) == [])
        guard case .malformed = validate(Array(repeating: event, count: 1_001)) else { Issue.record("1,001 accepted"); return }
    }

    @Test("each broken event is rejected alone, with its index, its event_id and a reason")
    func rejections() {
        let day: Int64 = 86_400_000
        let events = [
            IngestFixture.event(id: "ok0"),
            IngestFixture.event("", id: "r1"),
            IngestFixture.event(id: "r2", ts: now - 3_653 * day),
            IngestFixture.event(id: "r3", extra: #""props":{"k":null}"#),
            IngestFixture.event(id: "r4", extra: #""props":{"k":[1]}"#),
            IngestFixture.event(id: "r5", extra: #""props":{"k":{"a":1}}"#),
            IngestFixture.event(id: "r6", extra: "\"props\":{\"k\":\"\(String(repeating: "x", count: 8_193))\"}"),
            IngestFixture.event(id: String(repeating: "x", count: 65)),
            #"{"event":"a","event_id":"r8","ts":"soon"}"#,
            "42",
            IngestFixture.event(id: "r10", ts: now + day + 1),
            IngestFixture.event("tab\\there", id: "r11"),
            IngestFixture.event(id: "r12", extra: #""app_state":"asleep""#),
            IngestFixture.event(id: "r13", extra: #""engaged_ms":-1"#),
            IngestFixture.event(id: "r14", extra: #""props":{"k":9223372036854775808}"#),
            IngestFixture.event(id: "r15", extra: #""props":{"k":1e400}"#),
            IngestFixture.event(id: "r16", extra: #""props":{"":1}"#),
            IngestFixture.event(id: "r17", extra: #""device_id":"""#),
            IngestFixture.event(id: "r18", extra: #""props":[]"#),
            IngestFixture.event(id: "ok19", ts: now - 3_651 * day, extra: #""engaged_ms":0"#),
        ]
        let outcome = validate(events)
        #expect(rejectedIndexes(outcome) == Array(1...18))
        guard case .batch(_, let verdicts) = outcome else { return }
        for case .rejected(let rejection) in verdicts {
            #expect(!rejection.reason.isEmpty)
            if rejection.index == 9 { #expect(rejection.eventID == nil) }
            if rejection.index == 3 { #expect(rejection.eventID == "r3" && rejection.reason.contains("null")) }
        }
    }

    @Test("values exactly at the limits are accepted")
    func limits() {
        let props = (0..<199).map { "\"k\($0)\":\($0)" } + ["\"\(String(repeating: "k", count: 200))\":\"\(String(repeating: "v", count: 8_192))\""]
        let event = IngestFixture.event(String(repeating: "n", count: 200), id: String(repeating: "i", count: 64), extra: "\"props\":{\(props.joined(separator: ","))}")
        #expect(rejectedIndexes(validate([event])) == [])
        let tooMany = (0..<201).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(rejectedIndexes(validate([IngestFixture.event(extra: "\"props\":{\(tooMany)}")])) == [0])
    }

    @Test("a rejection's JSON escapes whatever the event_id holds")
    func rejectionJSON() throws {
        let json = IngestRejection(index: 2, eventID: "a\"b\n\u{1}", reason: "r").json
        let object = try JSONDecoder().decode(IngestAnswerBody.RejectedEvent.self, from: Data(json.utf8))
        #expect(object.eventID == "a\"b\n\u{1}")
        #expect(IngestRejection(index: 0, eventID: nil, reason: "r").json.contains("\"event_id\":null"))
    }
}
