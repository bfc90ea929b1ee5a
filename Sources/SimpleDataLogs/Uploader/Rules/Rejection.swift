/// One event the edge refused inside an accepted batch (an entry of the 202 body's `rejected`):
/// it broke a rule of INGEST-API.md and will never be accepted, so it is reported and logged,
/// never resent.
struct Rejection: Sendable, Hashable, Decodable {
    /// The event's position in the batch, from 0; `nil` when the edge did not say.
    var index: Int?
    /// The event's `event_id`; `nil` when the edge did not say (for example the event was not an object).
    var eventID: String?
    /// The rule it broke, in the edge's words.
    var reason: String

    /// Creates a rejection.
    /// - Parameters:
    ///   - index: The position in the batch.
    ///   - eventID: The `event_id`.
    ///   - reason: The rule broken.
    init(index: Int?, eventID: String?, reason: String) {
        self.index = index
        self.eventID = eventID
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey {
        case index
        case eventID = "event_id"
        case reason
    }

    /// Decodes one entry leniently: a missing or mistyped field becomes `nil` (or an unspecified
    /// reason) rather than failing the whole list, since the batch is deleted either way.
    /// - Parameter decoder: The decoder.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        index = try? container.decodeIfPresent(Int.self, forKey: .index)
        eventID = try? container.decodeIfPresent(String.self, forKey: .eventID)
        reason = (try? container.decodeIfPresent(String.self, forKey: .reason)) ?? "unspecified"
    }
}
