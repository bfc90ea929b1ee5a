import Foundation

/// A package-level door into the call record reader for the libFuzzer target
/// `Tests/Fuzz/FuzzIntakeLog`, which cannot see ``IntakeItem`` (internal, and `@testable` is not
/// available in a fuzz build). It calls the reader's own two forms, so the harness runs exactly
/// the code recovery and the identity stage run. Nothing in the package calls it.
extension IntakeRecordCodec {
    /// A decoded item flattened to values the harness can compare: its kind and its fields as
    /// text, in a fixed order (properties sorted by key, doubles by their bits, so NaN compares).
    package struct FuzzView: Sendable, Equatable {
        package var kind: Kind
        package var fields: [String]
    }

    /// What the reader makes of `bytes`, three ways.
    /// - Parameter bytes: A record's payload, or any bytes.
    /// - Returns: The item read from the array (`decode(_ bytes: [UInt8])`), the item read in place
    ///   (`decode(_ raw: UnsafeRawBufferPointer)`), and the array's item encoded again
    ///   (``encode(_:into:)``) and read back; each nil where the bytes make no whole item.
    package static func fuzzDecodings(_ bytes: [UInt8]) -> (fromArray: FuzzView?, inPlace: FuzzView?, reencoded: FuzzView?) {
        let fromArray = decode(bytes)
        let inPlace = bytes.withUnsafeBytes { decode($0) }
        var again: [UInt8] = []
        let reencoded = fromArray.flatMap { encode($0, into: &again) ? decode(again) : nil }
        return (fromArray.flatMap(fuzzView), inPlace.flatMap(fuzzView), reencoded.flatMap(fuzzView))
    }

    private static func fuzzView(_ item: IntakeItem) -> FuzzView? {
        guard let kind = kind(of: item) else { return nil }
        switch item {
        case .event(let event):
            var fields = [
                event.name, event.id.uuidString, "\(event.timestamp)", "\(event.trackedAt)", "\(event.origin)",
                "\(event.deviceIDSource)",
            ]
            fields += fuzzFields(event.properties)
            if let scoped = event.scopedProperties { fields += ["scoped"] + fuzzFields(scoped) }
            return FuzzView(kind: kind, fields: fields)
        case .setDeviceID(let device), .reset(let device):
            return FuzzView(kind: kind, fields: device.map { ["some", $0] } ?? ["none"])
        case .setDefaultProperties(let properties):
            return FuzzView(kind: kind, fields: fuzzFields(properties))
        case .setEnabled(let enabled):
            return FuzzView(kind: kind, fields: ["\(enabled)"])
        case .activity(let activity, let time):
            return FuzzView(kind: kind, fields: ["\(activity)", "\(time)"])
        case .restoreIdentity(let device, let defaults):
            return FuzzView(kind: kind, fields: (device.map { ["some", $0] } ?? ["none"]) + fuzzFields(defaults))
        case .replayBegins, .replayEnds, .barrier, .crashRecordHandedOver, .rotateKey, .logged:
            return FuzzView(kind: kind, fields: [])
        }
    }

    private static func fuzzFields(_ properties: [String: PropertyValue]) -> [String] {
        var fields = ["\(properties.count)"]
        for key in properties.keys.sorted() {
            fields.append(key)
            switch properties[key]! {
            case .string(let string): fields.append("s:" + string)
            case .int(let integer): fields.append("i:\(integer)")
            case .double(let double): fields.append("d:\(double.bitPattern)")
            case .bool(let bool): fields.append("b:\(bool)")
            }
        }
        return fields
    }
}
