/// One event the local ingest refused, as listed in a 202 answer's `rejected` array.
public struct IngestRejection: Sendable, Hashable {
    /// The event's position in the request's `events` array, from 0.
    public var index: Int
    /// The event's `event_id` when it had a string one, else `nil` (`null` on the wire).
    public var eventID: String?
    /// Why, in words (for example `"props.k: null is not a property value"`).
    public var reason: String

    /// Creates a rejection.
    /// - Parameters:
    ///   - index: The event's position in the request.
    ///   - eventID: Its `event_id`, if it had one.
    ///   - reason: Why it was refused.
    public init(index: Int, eventID: String?, reason: String) {
        self.index = index
        self.eventID = eventID
        self.reason = reason
    }

    /// The rejection as the JSON object the wire contract lists.
    var json: String {
        "{\"index\":\(index),\"event_id\":\(eventID.map(JSONWriter.quoted) ?? "null"),\"reason\":\(JSONWriter.quoted(reason))}"
    }
}
