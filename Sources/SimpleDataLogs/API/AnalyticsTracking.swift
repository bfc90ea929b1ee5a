public import Foundation

/// Something that tracks: the calls app and server code make, as a protocol, so that code can
/// take "something that tracks" and a test can hand it a fake.
///
/// ``SimpleDataLogsClient`` conforms, and so does the façade's client, ``SimpleDataLogs/shared``.
/// The testing library ships a fake, `RecordingTracker`, which records every call in order.
///
/// ```swift
/// @MainActor
/// final class CheckoutModel {
///     private let analytics: any AnalyticsTracking
///
///     init(analytics: any AnalyticsTracking = SimpleDataLogs.shared) {
///         self.analytics = analytics
///     }
///
///     func placeOrder(totalCents: Int64) {
///         analytics.track("order_placed", properties: ["total_cents": .int(totalCents)])
///     }
/// }
/// ```
///
/// The requirements are the synchronous calls that record something (every `track` form,
/// ``trackScreen(_:properties:)``, ``setDeviceID(_:)``, ``setDefaultProperties(_:)``,
/// ``setEnabled(_:)``, ``reset(deviceID:)``) and ``flush()``; none of them reaches the client's
/// internals, so a fake implements ten small methods. What only the owner of a client does (`configure`,
/// `shutdown`, `run`, the counters and reports) is not part of it: code that tracks should not
/// also decide when the client stops.
///
/// Requirements cannot carry default arguments, so the extension adds the short forms
/// (``track(_:)``, ``track(_:properties:deviceID:)``, ``trackScreen(_:)`` and the others); each
/// forwards to a requirement, and reads the same on the client and on an `any AnalyticsTracking`.
///
/// Every requirement must be safe to call from any thread, task or actor, and the synchronous
/// ones must return at once, as the client's do.
public protocol AnalyticsTracking: Sendable {
    /// Records one event now; see ``SimpleDataLogsClient/track(_:properties:)``.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    func track(_ name: String, properties: [String: PropertyValue])

    /// Records an event that happened earlier; see ``SimpleDataLogsClient/track(_:properties:at:eventID:)``.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - date: When it happened.
    ///   - eventID: A stable id, so that a resend counts once, or `nil` for a fresh one.
    func track(_ name: String, properties: [String: PropertyValue], at date: Date, eventID: UUID?)

    /// Records an event now with your own id; see ``SimpleDataLogsClient/track(_:properties:eventID:)``.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - eventID: A stable id.
    func track(_ name: String, properties: [String: PropertyValue], eventID: UUID)

    /// Records an event for one device; see ``SimpleDataLogsClient/track(_:properties:deviceID:eventID:at:)``.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - deviceID: The device this event is about.
    ///   - eventID: A stable id, or `nil` for a fresh one.
    ///   - date: When it happened, or `nil` for now.
    func track(_ name: String, properties: [String: PropertyValue], deviceID: String, eventID: UUID?, at date: Date?)

    /// Records a `screen_view` with a `screen` property; see ``SimpleDataLogsClient/trackScreen(_:properties:)``.
    /// - Parameters:
    ///   - screen: The screen's name.
    ///   - properties: More properties.
    func trackScreen(_ screen: String, properties: [String: PropertyValue])

    /// Sets, or clears with `nil`, the device id of every later event; see ``SimpleDataLogsClient/setDeviceID(_:)``.
    /// - Parameter deviceID: An anonymous id, or `nil`.
    func setDeviceID(_ deviceID: String?)

    /// Replaces the properties merged into every later event; see ``SimpleDataLogsClient/setDefaultProperties(_:)``.
    /// - Parameter properties: The new defaults.
    func setDefaultProperties(_ properties: [String: PropertyValue])

    /// The opt-out; see ``SimpleDataLogsClient/setEnabled(_:)``.
    /// - Parameter enabled: Whether to collect.
    func setEnabled(_ enabled: Bool)

    /// Forgets who was using the app, for a logout; see ``SimpleDataLogsClient/reset(deviceID:)``.
    /// - Parameter deviceID: The next user's anonymous id, or `nil` for none.
    func reset(deviceID: String?)

    /// Sends everything now and returns when that attempt ends; see ``SimpleDataLogsClient/flush()``.
    /// - Returns: What was delivered and what remains.
    @discardableResult
    func flush() async -> FlushResult
}

extension AnalyticsTracking {
    /// Records one event now, with no properties of its own.
    /// - Parameter name: The event's name.
    public func track(_ name: String) {
        track(name, properties: [:])
    }

    /// Records an event that happened earlier, with a fresh id.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - date: When it happened.
    public func track(_ name: String, properties: [String: PropertyValue] = [:], at date: Date) {
        track(name, properties: properties, at: date, eventID: nil)
    }

    /// Records an event now with your own id, with no properties of its own.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - eventID: A stable id.
    public func track(_ name: String, eventID: UUID) {
        track(name, properties: [:], eventID: eventID)
    }

    /// Records an event for one device, now, with a fresh id.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - deviceID: The device this event is about.
    public func track(_ name: String, properties: [String: PropertyValue] = [:], deviceID: String) {
        track(name, properties: properties, deviceID: deviceID, eventID: nil, at: nil)
    }

    /// Records a `screen_view` with a `screen` property and nothing else.
    /// - Parameter screen: The screen's name.
    public func trackScreen(_ screen: String) {
        trackScreen(screen, properties: [:])
    }

    /// Forgets who was using the app, with no next user named yet.
    public func reset() {
        reset(deviceID: nil)
    }

    /// The same as `setEnabled(false)`.
    public func disable() {
        setEnabled(false)
    }
}
