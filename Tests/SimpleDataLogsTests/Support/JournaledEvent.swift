import Foundation
import SimpleDataLogs

/// One event as the outbox stores it and the ingest receives it (INGEST-API.md, "Events";
/// written by `EventEncoder`), decoded with `JSONDecoder`.
///
/// Tests read what is on disk through this type rather than `[String: Any]`, so a field of the
/// wrong type or a missing required field fails the read with a `DecodingError` that names it,
/// instead of an `as!` crashing the whole test run.
struct JournaledEvent: Decodable, Sendable, Hashable {
    /// `event`: the event's name.
    var name: String
    /// `event_id`: the deduplication key, a lowercase UUID.
    var eventID: String
    /// `ts`: when the event happened, in milliseconds since the Unix epoch.
    var ts: Int64
    /// `device_id`, omitted when unset.
    var deviceID: String?
    /// `session_id`, omitted when there is no session.
    var sessionID: String?
    /// `app_state` (`"active"` or `"background"`), omitted when activity tracking is off.
    var appState: String?
    /// `engaged_ms`, omitted when activity tracking is off.
    var engagedMilliseconds: Int64?
    /// `props`; empty when the event has none (the encoder then leaves the field out).
    var props: [String: PropertyValue]
    enum CodingKeys: String, CodingKey {
        case name = "event"
        case eventID = "event_id"
        case ts
        case deviceID = "device_id"
        case sessionID = "session_id"
        case appState = "app_state"
        case engagedMilliseconds = "engaged_ms"
        case props
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        eventID = try container.decode(String.self, forKey: .eventID)
        ts = try container.decode(Int64.self, forKey: .ts)
        // An optional field is omitted, never `null` (the contract, and the encoder): decoded only
        // when present and then strictly, so nil here means the field is not in the object.
        deviceID = try Self.decodeIfPresent(String.self, .deviceID, in: container)
        sessionID = try Self.decodeIfPresent(String.self, .sessionID, in: container)
        appState = try Self.decodeIfPresent(String.self, .appState, in: container)
        engagedMilliseconds = try Self.decodeIfPresent(Int64.self, .engagedMilliseconds, in: container)
        props = try Self.decodeIfPresent([String: DecodedValue].self, .props, in: container)?.mapValues(\.value) ?? [:]
    }

    /// The field's value when the object has it; throws on `null` as on any other wrong type
    /// (`decodeIfPresent` would read `null` as absent).
    private static func decodeIfPresent<Value: Decodable>(
        _ type: Value.Type, _ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> Value? {
        container.contains(key) ? try container.decode(type, forKey: key) : nil
    }

    /// The integer property `key`, or nil when it is missing or not an integer.
    func int(_ key: String) -> Int? {
        if case .int(let value)? = props[key] { Int(exactly: value) } else { nil }
    }

    /// The string property `key`, or nil when it is missing or not a string.
    func string(_ key: String) -> String? {
        if case .string(let value)? = props[key] { value } else { nil }
    }

    /// The integer property `key`; throws when it is missing or not an integer, so a test that
    /// expects every event to carry one (a sequence number) fails with a message, not a trap.
    func requiredInt(_ key: String) throws -> Int {
        guard let value = int(key) else { throw MissingProperty(key: key, event: self) }
        return value
    }

    /// An event without the integer property a test required.
    struct MissingProperty: Error, CustomStringConvertible {
        let key: String
        let event: JournaledEvent
        var description: String { "event \(event.name) (\(event.eventID)) has no integer property \(key): \(event.props)" }
    }

    /// One `props` value: a string, a signed 64-bit integer, a finite number or a boolean, the
    /// only kinds the contract allows. `PropertyValue` is not `Decodable` (the SDK never reads
    /// JSON events back), so the test target decodes through this.
    private struct DecodedValue: Decodable {
        let value: PropertyValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // Booleans first: JSON `true` is never a number to JSONDecoder. Integers before
            // doubles, so `3` reads as `.int(3)` the way the encoder wrote it.
            if let bool = try? container.decode(Bool.self) {
                value = .bool(bool)
            } else if let int = try? container.decode(Int64.self) {
                value = .int(int)
            } else if let double = try? container.decode(Double.self) {
                value = .double(double)
            } else {
                value = .string(try container.decode(String.self))
            }
        }
    }
}

/// Whether a journal or batch record is a batch's header (`{"sdl_batch": …}`) rather than an
/// event; decoded on its own so the header's fields need no type here.
struct BatchHeaderProbe: Decodable {
    let isHeader: Bool

    private enum CodingKeys: String, CodingKey { case sdlBatch = "sdl_batch" }

    init(from decoder: any Decoder) throws {
        isHeader = try decoder.container(keyedBy: CodingKeys.self).contains(.sdlBatch)
    }
}

/// A request body as the uploader sends it (INGEST-API.md, "Request"): the events exactly as
/// journaled, plus the attempt's `sent_at`.
struct SentBody: Decodable, Sendable, Hashable {
    /// `sent_at`: the client's clock at this attempt, in milliseconds since the Unix epoch.
    var sentAt: Int64
    /// `events`: the batch's events, in order.
    var events: [JournaledEvent]

    enum CodingKeys: String, CodingKey {
        case sentAt = "sent_at"
        case events
    }
}

/// An ingest's answer body (INGEST-API.md, "Responses"): the counts of a 202, or the `error` of
/// anything else. Every field is optional, so one type reads every status.
struct IngestAnswerBody: Decodable, Sendable, Hashable {
    /// How many events a 202 counted.
    var accepted: Int?
    /// How many a 202 had already counted (same `event_id`).
    var duplicates: Int?
    /// The events a 202 rejected, which must never be resent.
    var rejected: [RejectedEvent]?
    /// What went wrong, for any other status.
    var error: String?

    /// One entry of `rejected`.
    struct RejectedEvent: Decodable, Sendable, Hashable {
        /// The event's position in the request's `events`.
        var index: Int
        /// Its `event_id`, or nil when the event had none (written as JSON `null`).
        var eventID: String?
        /// Which rule it broke.
        var reason: String

        enum CodingKeys: String, CodingKey {
            case index
            case eventID = "event_id"
            case reason
        }
    }
}
