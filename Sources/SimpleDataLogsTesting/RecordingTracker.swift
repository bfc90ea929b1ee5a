import Foundation
public import SimpleDataLogs

/// A fake ``AnalyticsTracking`` that records every call, in order, and sends nothing: for unit
/// tests of code that takes "something that tracks" (a view model, a request handler), with no
/// client, no folder and no transport.
///
/// ```swift
/// let tracker = RecordingTracker()
/// let model = CheckoutModel(analytics: tracker)
/// model.placeOrder(totalCents: 1299)
/// #expect(tracker.events.map(\.name) == ["order_placed"])
/// ```
///
/// It judges nothing: no validation, no opt-out, no default properties merged. ``calls`` is
/// what the code asked for, word for word; ``events`` is the `track` calls among them, with
/// ``AnalyticsTracking/trackScreen(_:properties:)`` as the `screen_view` event the client would
/// make of it. To test what reaches the ingest (validation, merging, ids), use a real client
/// with a `RecordingTransport` instead.
///
/// A `final class` whose only state is a lock-guarded list: it may be called from any thread,
/// task or actor, as the client may.
public final class RecordingTracker: AnalyticsTracking {
    /// One call made to the tracker, with its arguments.
    public enum Call: Sendable, Hashable {
        /// One of the `track` forms; unset arguments are `nil`.
        case track(TrackedEvent)
        /// ``AnalyticsTracking/trackScreen(_:properties:)``.
        case trackScreen(String, properties: [String: PropertyValue])
        /// ``AnalyticsTracking/setDeviceID(_:)``.
        case setDeviceID(String?)
        /// ``AnalyticsTracking/setDefaultProperties(_:)``.
        case setDefaultProperties([String: PropertyValue])
        /// ``AnalyticsTracking/setEnabled(_:)``.
        case setEnabled(Bool)
        /// `reset(deviceID:)`.
        case reset(deviceID: String?)
        /// ``AnalyticsTracking/flush()``.
        case flush
    }

    /// What one `track` call (or a `trackScreen`, as its `screen_view`) asked for: the SDK's
    /// ``TrackCall``, as ``AnalyticsTracking/record(_:)`` receives it.
    public typealias TrackedEvent = TrackCall

    private struct State: Sendable {
        var calls: [Call] = []
        var tracksSinceFlush = 0
    }

    private let state = Locked(State())

    /// Creates a tracker with no calls recorded.
    public init() {}

    /// Every call so far, oldest first.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// The events asked for so far, oldest first: every `track` call, and every `trackScreen` as
    /// the `screen_view` event with its `screen` property.
    public var events: [TrackedEvent] {
        calls.compactMap { call in
            switch call {
            case .track(let event):
                return event
            case .trackScreen(let screen, let properties):
                var properties = properties
                properties["screen"] = .string(screen)
                return TrackedEvent("screen_view", properties: properties)
            case .setDeviceID, .setDefaultProperties, .setEnabled, .reset, .flush:
                return nil
            }
        }
    }

    /// Forgets every call recorded so far, for a test that checks one step at a time.
    public func removeAllCalls() {
        state.withLock { $0 = State() }
    }

    private func record(_ call: Call) {
        state.withLock { state in
            state.calls.append(call)
            switch call {
            case .track, .trackScreen: state.tracksSinceFlush += 1
            case .setDeviceID, .setDefaultProperties, .setEnabled, .reset, .flush: break
            }
        }
    }

    // MARK: AnalyticsTracking

    /// Records ``Call/track(_:)`` with what was passed.
    /// - Parameter call: The `track` call's arguments.
    public func record(_ call: TrackCall) {
        record(.track(call))
    }

    /// Records ``Call/trackScreen(_:properties:)``.
    /// - Parameters:
    ///   - screen: The screen's name.
    ///   - properties: More properties.
    public func trackScreen(_ screen: String, properties: [String: PropertyValue]) {
        record(.trackScreen(screen, properties: properties))
    }

    /// Records ``Call/setDeviceID(_:)``.
    /// - Parameter deviceID: The id, or `nil`.
    public func setDeviceID(_ deviceID: String?) {
        record(.setDeviceID(deviceID))
    }

    /// Records ``Call/setDefaultProperties(_:)``.
    /// - Parameter properties: The new defaults.
    public func setDefaultProperties(_ properties: [String: PropertyValue]) {
        record(.setDefaultProperties(properties))
    }

    /// Records ``Call/setEnabled(_:)``.
    /// - Parameter enabled: Whether to collect.
    public func setEnabled(_ enabled: Bool) {
        record(.setEnabled(enabled))
    }

    /// Records ``Call/reset(deviceID:)``.
    /// - Parameter deviceID: The next user's id, or `nil`.
    public func reset(deviceID: String?) {
        record(.reset(deviceID: deviceID))
    }

    /// Records ``Call/flush`` and answers as if the ingest took everything: `delivered` is the
    /// number of `track` and `trackScreen` calls since the previous flush, `remaining` is 0.
    /// - Returns: That result.
    @discardableResult
    public func flush() async -> FlushResult {
        let delivered: Int = state.withLock { state in
            state.calls.append(.flush)
            defer { state.tracksSinceFlush = 0 }
            return state.tracksSinceFlush
        }
        return FlushResult(delivered: delivered, remaining: 0)
    }
}
