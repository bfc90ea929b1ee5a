public import Foundation

/// An event as a middleware step sees it: after validation, the device id and the default and
/// scoped properties, before the sessions stage adds `session_id` and activity, and before it is
/// journaled.
///
/// A step may change ``name``, ``properties`` and ``deviceID``; the SDK checks the result by the
/// same rules as a tracked event (a name it cannot send drops the event as invalid, properties are
/// repaired the same way). The id and the time stay what `track()` stamped.
public struct OutgoingEvent: Sendable, Hashable {
    /// The event's name.
    public var name: String
    /// Its properties: the event's own, then the scoped ones, then the defaults.
    public var properties: [String: PropertyValue]
    /// The device id it will carry, if any.
    public var deviceID: String?
    /// The `event_id` the ingest deduplicates by (the same for every retry).
    public let eventID: UUID
    /// When it happened, in milliseconds since the Unix epoch (the wire's `ts`).
    public let timestampMilliseconds: Int64
    /// Whether the SDK sent it itself (`app_launched`, `app_crashed`, screen views are the app's).
    public let isAutocaptured: Bool

    /// Creates an event as a step would see it: for testing a step on its own, with
    /// ``EventMiddleware/run(_:)``.
    /// - Parameters:
    ///   - name: The name.
    ///   - properties: The properties.
    ///   - deviceID: The device id.
    ///   - eventID: The event's id; a fresh one by default.
    ///   - timestampMilliseconds: When it happened; 0 by default.
    ///   - isAutocaptured: Whether the SDK made it.
    public init(
        name: String, properties: [String: PropertyValue] = [:], deviceID: String? = nil, eventID: UUID = UniqueID.random(),
        timestampMilliseconds: Int64 = 0, isAutocaptured: Bool = false
    ) {
        self.name = name
        self.properties = properties
        self.deviceID = deviceID
        self.eventID = eventID
        self.timestampMilliseconds = timestampMilliseconds
        self.isAutocaptured = isAutocaptured
    }
}
