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
/// The requirements are the synchronous calls that record something (``record(_:)``, behind every
/// `track`, ``trackScreen(_:properties:)``, ``setDeviceID(_:)``, ``setDefaultProperties(_:)``,
/// ``setEnabled(_:)``, ``reset(deviceID:)``) and ``flush()``; none of them reaches the client's
/// internals, so a fake implements seven small methods. What only the owner of a client does (`configure`,
/// `shutdown`, `run`, the counters and reports) is not part of it: code that tracks should not
/// also decide when the client stops.
///
/// Code calls ``track(_:properties:at:eventID:deviceID:)``, which the extension declares with its
/// defaults and which hands the arguments to ``record(_:)`` as a ``TrackCall``. The requirement
/// has another name on purpose: a requirement spelled like the defaulted `track` would take the
/// extension's method as its default implementation, and a conformer that forgot it would call
/// itself forever; a distinct requirement is one the compiler makes every conformer write.
///
/// Every requirement must be safe to call from any thread, task or actor, and the synchronous
/// ones must return at once, as the client's do.
public protocol AnalyticsTracking: Sendable {
    /// Records one `track` call; see ``SimpleDataLogsClient/track(_:properties:at:eventID:deviceID:)``.
    /// Code calls ``track(_:properties:at:eventID:deviceID:)``; conformers implement this.
    /// - Parameter call: The call's arguments, as passed.
    func record(_ call: TrackCall)

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
    /// Records one event; every argument but the name may be left out. Hands the arguments to
    /// ``record(_:)``, so it does what the conformer's method does.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - date: When it happened, or `nil` for now.
    ///   - eventID: A stable id, or `nil` for a fresh one.
    ///   - deviceID: The device this event is about, or `nil` for the one set for all events.
    public func track(
        _ name: String, properties: [String: PropertyValue] = [:], at date: Date? = nil, eventID: UUID? = nil, deviceID: String? = nil
    ) {
        record(TrackCall(name, properties: properties, at: date, eventID: eventID, deviceID: deviceID))
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
}
