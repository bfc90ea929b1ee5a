import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Outbox: the event encoder and its size bound", .stuckTestLimit)
struct EventEncoderTests {
    static let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

    /// Events at the edges: every string made of bytes that escape to six, the widest integers
    /// and doubles, every optional field.
    static let edgeEvents: [Event] = {
        var events: [Event] = []
        let strings = ["", "plain", controls, String(repeating: "\u{1}", count: 500), "quote\"back\\slash", "ünïcødé 🎉", String(repeating: "\"", count: 300)]
        for (index, text) in strings.enumerated() {
            var event = Event(
                name: text.isEmpty ? "e" : text, id: UUID(), timestamp: Int64.min + 1, trackedAt: 0,
                properties: [
                    text: .string(text), "min": .int(Int64.min), "max": .int(Int64.max), "neg": .double(-2.2250738585072014e-308),
                    "big": .double(-1.7976931348623157e+308), "tiny": .double(Double.leastNonzeroMagnitude), "b": .bool(index % 2 == 0),
                ],
                origin: .live
            )
            event.deviceID = text
            event.sessionID = text + "s"
            event.appState = index % 2 == 0 ? .active : .background
            event.engagedMilliseconds = Int64.min
            events.append(event)
        }
        return events
    }()

    @Test("the bound holds for every edge: the room computed up front is never exceeded")
    func boundHolds() {
        for event in Self.edgeEvents {
            let bytes = EventEncoder.encode(event)
            #expect(bytes.count <= EventEncoder.maximumSize(of: event), "\(bytes.count) > bound for \(event.name.prefix(10))")
        }
    }

    @Test("the JSON parses back to the same fields and values, escapes and extremes included; both entry points agree")
    func roundTrips() throws {
        for event in Self.edgeEvents {
            let bytes = EventEncoder.encode(event)
            var appended: [UInt8] = [1, 2, 3]
            EventEncoder.encode(event, into: &appended)
            #expect(Array(appended.dropFirst(3)) == bytes, "encode(into:) appends exactly what encode() returns")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(object["event"] as? String == event.name)
            #expect(object["event_id"] as? String == event.id.uuidString.lowercased())
            #expect((object["ts"] as? NSNumber)?.int64Value == event.timestamp)
            #expect(object["device_id"] as? String == event.deviceID)
            #expect(object["session_id"] as? String == event.sessionID)
            #expect(object["app_state"] as? String == event.appState?.rawValue)
            #expect((object["engaged_ms"] as? NSNumber)?.int64Value == event.engagedMilliseconds)
            let props = try #require(object["props"] as? [String: Any])
            #expect(props.count == event.properties.count)
            for (key, value) in event.properties {
                switch value {
                case .string(let string): #expect(props[key] as? String == string)
                case .int(let integer): #expect((props[key] as? NSNumber)?.int64Value == integer)
                case .double(let double): #expect((props[key] as? NSNumber)?.doubleValue == double)
                case .bool(let bool): #expect((props[key] as? NSNumber)?.boolValue == bool)
                }
            }
        }
    }
}
