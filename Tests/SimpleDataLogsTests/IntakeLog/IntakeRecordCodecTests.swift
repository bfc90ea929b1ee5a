import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// The intake log's call records (``IntakeRecordCodec``): every logged call comes back as it was
/// made, and no bytes make the decoder trap.
@Suite("Intake log: call records")
struct IntakeRecordCodecTests {
    static func encoded(_ item: IntakeItem) -> [UInt8] {
        var bytes: [UInt8] = []
        IntakeRecordCodec.encode(item, into: &bytes)
        return bytes
    }

    /// Properties in a form that compares NaN by its bits.
    static func comparable(_ properties: [String: PropertyValue]?) -> [String: String]? {
        properties?.mapValues { value in
            switch value {
            case .string(let string): "s:" + string
            case .int(let integer): "i:\(integer)"
            case .double(let double): "d:\(double.bitPattern)"
            case .bool(let bool): "b:\(bool)"
            }
        }
    }

    /// Every field the record carries comes back equal (NaN by its bits).
    static func roundTrips(_ item: IntakeItem) -> Bool {
        guard let decoded = IntakeRecordCodec.decode(encoded(item)) else { return false }
        switch (item, decoded) {
        case (.event(let original), .event(let back)):
            return original.name == back.name && original.id == back.id && original.timestamp == back.timestamp
                && original.trackedAt == back.trackedAt && original.origin == back.origin
                && original.deviceIDSource == back.deviceIDSource
                && comparable(original.properties) == comparable(back.properties)
                && comparable(original.scopedProperties) == comparable(back.scopedProperties)
        case (.setDefaultProperties(let original), .setDefaultProperties(let back)):
            return comparable(original) == comparable(back)
        case (.setDeviceID(let original), .setDeviceID(let back)), (.reset(let original), .reset(let back)):
            return original == back
        case (.setEnabled(let original), .setEnabled(let back)):
            return original == back
        case (.activity(let original, let time), .activity(let back, let backTime)):
            return original == back && time == backTime
        default:
            return false
        }
    }

    static let properties: [String: PropertyValue] = [
        "plan": "pro", "seats": 3, "price": 19.99, "trial": true, "emoji": "café ☕️ 🎉", "": "", "big": .int(.min), "nan": .double(.nan),
    ]

    @Test("every kind of logged call comes back as made: events of each origin, with and without an explicit device id and scoped properties; identity, enabled, reset and activity calls")
    func everyKind() {
        let id = UUID()
        var live = Event(name: "screen_viewed", id: id, timestamp: 1_764_669_999_001, trackedAt: 1_764_669_999_001, properties: Self.properties, origin: .live)
        #expect(Self.roundTrips(.event(live)))
        live.deviceIDSource = .explicit("device-ü")
        live.scopedProperties = ["request_id": "r-1"]
        #expect(Self.roundTrips(.event(live)))
        let backdated = Event(name: "", id: id, timestamp: -5, trackedAt: .max, properties: [:], origin: .backdated)
        #expect(Self.roundTrips(.event(backdated)))
        #expect(Self.roundTrips(.event(Event(name: "app_launched", id: id, timestamp: 0, trackedAt: 0, properties: [:], origin: .autocaptured))))
        for item: IntakeItem in [
            .setDeviceID("user-42"), .setDeviceID(nil), .setDefaultProperties(Self.properties), .setDefaultProperties([:]),
            .setEnabled(true), .setEnabled(false), .reset("next"), .reset(nil),
            .activity(.foreground, at: 1), .activity(.background, at: -1), .activity(.userInput, at: .max),
        ] {
            #expect(Self.roundTrips(item), "\(item)")
        }
        if case .event(let back)? = IntakeRecordCodec.decode(Self.encoded(.event(live))) {
            #expect(back.properties["emoji"] == "café ☕️ 🎉" && back.properties["big"] == .int(.min) && back.properties["trial"] == true)
            #expect(back.scopedProperties == ["request_id": "r-1"] && back.deviceIDSource == .explicit("device-ü"))
        } else {
            Issue.record("the event did not decode")
        }
    }

    @Test("barriers and crash-record hand-overs are not logged")
    func notLogged() {
        var bytes: [UInt8] = []
        #expect(!IntakeRecordCodec.encode(.barrier(Barrier()), into: &bytes))
        #expect(bytes.isEmpty)
    }

    @Test("every prefix of a record, the record with a byte more, and 20,000 random byte strings decode to nil or to an item, never a trap")
    func garbage() {
        let event = Event(name: "e", id: UUID(), timestamp: 1, trackedAt: 1, properties: Self.properties, origin: .live)
        let bytes = Self.encoded(.event(event))
        for count in 0..<bytes.count {
            #expect(IntakeRecordCodec.decode(Array(bytes.prefix(count))) == nil, "prefix of \(count) bytes")
        }
        #expect(IntakeRecordCodec.decode(bytes + [0]) == nil, "a trailing byte")
        var random = SplitMix64(seed: 20_261_204)
        for _ in 0..<20_000 {
            let count = Int(random.next() % 64)
            var garbage = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !garbage.isEmpty, random.next() % 2 == 0 { garbage[0] = UInt8(1 + random.next() % 6) }  // a valid kind
            _ = IntakeRecordCodec.decode(garbage)
        }
        // A huge count in front of little data is refused, not allocated.
        #expect(IntakeRecordCodec.decode([3, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) == nil)
    }
}
