package import Foundation

/// One event as it moves through the pipeline, from `track()` to the journal.
///
/// `id` and `timestamp` are stamped inside `track()`. The identity stage fills in `deviceID`
/// and merges the default properties; the sessions stage adds `sessionID` and activity.
package struct Event: Sendable, Equatable {
    /// How the event came to be, which decides what the session and activity rules do with it.
    package enum Origin: Sendable, Equatable {
        /// Tracked by the app for "now".
        case live
        /// Tracked by the app with an explicit earlier time: never moves sessions, carries no
        /// `session_id`, `app_state` or `engaged_ms`.
        case backdated
        /// Sent by the SDK itself (`app_launched`, `session_start`, …); only `app_launched` and
        /// `app_crashed` count as activity for sessions (``SessionRules``).
        case autocaptured
    }

    /// Where the event's device id comes from.
    package enum DeviceIDSource: Sendable, Equatable {
        /// The id from the last `setDeviceID` before this event.
        case inherited
        /// An id given for this event alone (a per-event or task-local id), which wins.
        case explicit(String)
    }

    var name: String
    var id: UUID
    /// Milliseconds since the Unix epoch: when it happened (the wire's `ts`).
    var timestamp: Int64
    /// Milliseconds since the Unix epoch: when `track()` was called. Differs from `timestamp`
    /// only for back-dated events, whose age is judged against this, not against the moment a
    /// later stage looks at them.
    var trackedAt: Int64
    var properties: [String: PropertyValue]
    var origin: Origin
    var deviceIDSource: DeviceIDSource = .inherited
    /// The properties of the `withProperties` scope `track()` was called in, merged under the
    /// event's own by the identity stage (so `track()` pays one task-local read, not a merge).
    var scopedProperties: [String: PropertyValue]? = nil
    var deviceID: String? = nil
    var sessionID: String? = nil
    var appState: AppState? = nil
    var engagedMilliseconds: Int64? = nil
    /// The memory the event was estimated to hold when the intake took it, counted against the
    /// backlog's byte bound until the journal writes it; 0 for events the SDK makes itself.
    var memoryCost = 0
}

extension Event {
    /// A live event with every other field at its default, for the benchmarks' baselines, which
    /// encode events exactly as the journal does. A factory, not a `package` initializer: making
    /// the memberwise initializer `package` cost `track()` about 60 ns (measured, p50 270 → 330 ns).
    package static func live(name: String, id: UUID, timestamp: Int64, properties: [String: PropertyValue]) -> Event {
        Event(name: name, id: id, timestamp: timestamp, trackedAt: timestamp, properties: properties, origin: .live)
    }

    /// What every event is counted as holding before its own strings and properties: the event
    /// value and its queue entry.
    static let baseMemoryCost = 160

    /// A deliberately generous estimate of the memory one tracked event holds until the journal
    /// writes it: the event itself, its name and device id, a dictionary slot and a key's worth for
    /// each property, and the bytes of each string value (the one part that can be large). Made
    /// in `track()` before the intake's lock: one walk of the values, reading each string's UTF-8
    /// count (constant time for native strings), no key copied.
    static func memoryCost(name: String, properties: [String: PropertyValue], deviceID: String?) -> Int {
        var cost = baseMemoryCost &+ name.utf8.count &+ (deviceID?.utf8.count ?? 0) &+ properties.count &* 64
        for value in properties.values {
            if case .string(let string) = value { cost &+= string.utf8.count }
        }
        return cost
    }
}

/// Whether someone was using the app when the event happened (the wire's `app_state`).
package enum AppState: String, Sendable, Equatable {
    /// The app was in front, or (on a Mac) had keyboard or mouse input in the last 10 seconds.
    case active
    /// Neither.
    case background
}
