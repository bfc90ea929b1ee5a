/// The session rules, as a pure value: it takes each event (and each activity change) with its
/// time and says which `session_start` and `session_end` events to send, and which `session_id`
/// the event carries. No clock, no I/O; the ``SessionsActor`` feeds it, tests drive it directly.
///
/// - `.inactivityTimeout(minutes: m)`: a session ends when more than `m` minutes pass between two
///   live events; the first event after the gap sends `session_end` (stamped at the last
///   activity, with `duration_s`) and `session_start` before itself.
/// - `.activation`: a session ends after 30 minutes away from the app (not in front). It applies
///   once an activity source has reported; until then (Linux servers and tools, where nothing
///   reports activation) it behaves as `.inactivityTimeout(minutes: 30)`.
/// - Sessions are kept per device id, so a server tracking for many devices never merges two
///   devices into one session. At most `maxSessions` are open; past that the least recently
///   active one is ended.
/// - Back-dated events never move sessions and carry no `session_id`.
/// - A launch is activity: `app_launched` and `app_crashed` (sent at launch) start a session when
///   none is open and extend the open one, like a live event, so `.sessions` works without any
///   `track` call, as the product doc promises. Other autocaptured events (`session_start`,
///   `session_end`) join an open session but never start or extend one.
/// - In `.activation` mode an activation also starts a session when none is open, for the device
///   id of the latest activity event (apps have one identity at a time; none before any event).
struct SessionRules: Sendable {
    /// One open session.
    struct Session: Sendable, Equatable, Codable {
        var id: String
        var deviceID: String?
        /// Milliseconds since the Unix epoch.
        var start: Int64
        var lastActivity: Int64
    }

    let mode: SessionMode
    let maxSessions: Int
    private(set) var sessions: [String: Session] = [:]
    /// Whether an activity source has reported (then `.activation` applies as such).
    private(set) var activityReported = false
    /// Since when the app has been away (not in front), when it is.
    private(set) var awaySince: Int64?
    private var ids: EventIDGenerator
    /// The device id of the latest activity event: whom an activation's session is for. `nil`
    /// until one has been seen.
    private var latestDevice: String??

    init(mode: SessionMode, maxSessions: Int = 1_000, ids: EventIDGenerator = EventIDGenerator()) {
        self.mode = mode
        self.maxSessions = maxSessions
        self.ids = ids
    }

    /// The sessions to carry over a restart; ended at the next launch if the process dies.
    var openSessions: [Session] { Array(sessions.values).sorted { $0.start < $1.start } }

    /// Handles one event: fills in its `session_id` and returns the session events to send
    /// before it, in order.
    mutating func process(_ event: inout Event) -> [Event] {
        guard event.origin != .backdated else { return [] }
        let key = event.deviceID ?? ""
        let now = event.timestamp
        let isActivity = Self.isActivity(event)
        if isActivity { latestDevice = .some(event.deviceID) }
        var emitted: [Event] = []
        if var session = sessions[key] {
            if isExpired(session, at: now) {
                if !isActivity {
                    // Never starts a session; the expired one ends at the next activity.
                    return []
                }
                emitted.append(endEvent(for: session))
                sessions[key] = nil
            } else {
                if isActivity { session.lastActivity = max(session.lastActivity, now) }
                sessions[key] = session
                event.sessionID = session.id
                return []
            }
        }
        guard isActivity else { return emitted }
        let session = Session(id: newSessionID(at: now), deviceID: event.deviceID, start: now, lastActivity: now)
        emitted.append(startEvent(for: session))
        sessions[key] = session
        event.sessionID = session.id
        emitted += evictIfOverBound(keeping: key)
        return emitted
    }

    /// The app came to the front at `time`: in `.activation` mode, a session that was away for
    /// more than 30 minutes ends (at its last activity), and a new one starts.
    mutating func appBecameActive(at time: Int64) -> [Event] {
        activityReported = true
        defer { awaySince = nil }
        guard case .activation = mode else { return [] }
        var emitted: [Event] = []
        for (key, session) in sessions where isExpired(session, at: time) {
            emitted.append(endEvent(for: session))
            sessions[key] = nil
        }
        touchAll(at: time)
        // Before any event there is no device id yet: the session is for none, as events are
        // until `setDeviceID`.
        let device: String? = latestDevice ?? nil
        if sessions[device ?? ""] == nil {
            let session = Session(id: newSessionID(at: time), deviceID: device, start: time, lastActivity: time)
            sessions[device ?? ""] = session
            emitted.append(startEvent(for: session))
            emitted += evictIfOverBound(keeping: device ?? "")
        }
        return emitted
    }

    /// `reset()`: ends the open session of the identity that logged out, now (its `session_end`
    /// stamped at its last activity), and forgets it as the latest device, so an activation after
    /// the logout starts a session for whoever the app names next, never for the old identity.
    mutating func endSession(ofDevice deviceID: String?, becoming next: String?) -> [Event] {
        latestDevice = .some(next)
        guard let session = sessions.removeValue(forKey: deviceID ?? "") else { return [] }
        return [endEvent(for: session)]
    }

    /// Whether an event is activity: it may start a session and keeps one alive.
    static func isActivity(_ event: Event) -> Bool {
        switch event.origin {
        case .live: return true
        case .autocaptured: return event.name == "app_launched" || event.name == "app_crashed"
        case .backdated: return false
        }
    }

    /// The app went to the background at `time`.
    mutating func appWentAway(at time: Int64) {
        activityReported = true
        if awaySince == nil { awaySince = time }
        touchAll(at: time)
    }

    /// Activation and going away are activity for every open session.
    private mutating func touchAll(at time: Int64) {
        sessions = sessions.mapValues { session in
            var session = session
            session.lastActivity = max(session.lastActivity, time)
            return session
        }
    }

    /// Whether `session` has ended by `time` under the mode's rule.
    func isExpired(_ session: Session, at time: Int64) -> Bool {
        switch mode {
        case .inactivityTimeout(let minutes):
            return time - session.lastActivity > Int64(max(minutes, 0)) * 60_000
        case .activation:
            guard activityReported else { return time - session.lastActivity > 30 * 60_000 }
            guard let awaySince else { return false }
            return time - max(awaySince, session.lastActivity) > 30 * 60_000
        }
    }

    /// `session_end` for a session, stamped at its last activity.
    private mutating func endEvent(for session: Session) -> Event {
        Self.endEvent(for: session, ids: &ids)
    }

    /// `session_end` for a session, stamped at its last activity, with `duration_s` in whole
    /// seconds. Also used at launch for sessions a dead process left open.
    static func endEvent(for session: Session, ids: inout EventIDGenerator) -> Event {
        makeEvent("session_end", at: session.lastActivity, session: session, properties: [
            "duration_s": .int(max(0, session.lastActivity - session.start) / 1_000),
        ], ids: &ids)
    }

    private mutating func startEvent(for session: Session) -> Event {
        Self.makeEvent("session_start", at: session.start, session: session, properties: [:], ids: &ids)
    }

    private static func makeEvent(_ name: String, at time: Int64, session: Session, properties: [String: PropertyValue], ids: inout EventIDGenerator) -> Event {
        var event = Event(
            name: name, id: ids.next(milliseconds: time), timestamp: time, trackedAt: time,
            properties: properties, origin: .autocaptured
        )
        event.deviceID = session.deviceID
        event.sessionID = session.id
        return event
    }

    private mutating func newSessionID(at time: Int64) -> String {
        EventEncoder.lowercaseString(ids.next(milliseconds: time))
    }

    /// Ends the least recently active sessions past the bound (never `key`'s, just started).
    private mutating func evictIfOverBound(keeping key: String) -> [Event] {
        guard sessions.count > maxSessions else { return [] }
        let oldest = sessions.filter { $0.key != key }.sorted { $0.value.lastActivity < $1.value.lastActivity }
        var emitted: [Event] = []
        for (evicted, session) in oldest.prefix(sessions.count - maxSessions) {
            emitted.append(endEvent(for: session))
            sessions[evicted] = nil
        }
        return emitted
    }
}
