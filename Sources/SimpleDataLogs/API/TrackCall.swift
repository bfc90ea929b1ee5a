public import Foundation

/// What one `track` call asked for, as ``AnalyticsTracking/record(_:)`` receives it: the
/// arguments as passed, `nil` where left out. Stamping, validation and merging happen in the
/// client, after it.
public struct TrackCall: Sendable, Hashable {
    /// The event's name.
    public var name: String
    /// The event's own properties.
    public var properties: [String: PropertyValue]
    /// When it happened, or `nil` for now.
    public var date: Date?
    /// A stable id, or `nil` for a fresh one.
    public var eventID: UUID?
    /// The device it is about, or `nil` for the one set for all events.
    public var deviceID: String?

    /// A call, with the arguments of ``AnalyticsTracking/track(_:properties:at:eventID:deviceID:)``.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - date: When it happened, or `nil` for now.
    ///   - eventID: A stable id, or `nil` for a fresh one.
    ///   - deviceID: The device it is about, or `nil`.
    public init(
        _ name: String, properties: [String: PropertyValue] = [:], at date: Date? = nil, eventID: UUID? = nil, deviceID: String? = nil
    ) {
        self.name = name
        self.properties = properties
        self.date = date
        self.eventID = eventID
        self.deviceID = deviceID
    }
}
