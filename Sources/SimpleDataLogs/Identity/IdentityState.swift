/// The identity rules, as a pure value: the device id, the default properties, and how they
/// apply to an event. The ``IdentityActor`` holds one and feeds it the ordered intake.
struct IdentityState: Sendable {
    private(set) var deviceID: String?
    private(set) var defaultProperties: [String: PropertyValue] = [:]
    /// The install id the SDK keeps (opt-in): the device id of events for which the app set none.
    var installID: String?
    /// The automatic context (opt-in, ``AutomaticContext``): under the default properties, which
    /// win on a clash. Not identity: `reset()` keeps it.
    var context: [String: PropertyValue] = [:]

    /// The device id an event gets when it names none: the app's, else the install id.
    var inheritedDeviceID: String? { deviceID ?? installID }
    /// The live identity, kept aside while a dead run's calls are replayed (innermost last).
    private var keptAside: [(deviceID: String?, defaults: [String: PropertyValue], context: [String: PropertyValue])] = []

    /// A replay's starting point (the intake log, issue 25): the device id and defaults as they
    /// stood in a dead run, by the rules of the calls that set them, but without their lines
    /// (that run logged them) or `reset()`'s side effects.
    mutating func restore(deviceID: String?, defaults: [String: PropertyValue]) {
        var ignored: [EventValidator.Problem] = []
        _ = setDeviceID(deviceID)
        setDefaultProperties(defaults, problems: &ignored)
    }

    /// A dead run's calls follow: the live identity is kept aside, and they start from none.
    /// The automatic context too: it describes this run (after an update, another app version),
    /// and a replayed event without it is better than one that names the wrong build.
    mutating func beginReplay() {
        keptAside.append((deviceID, defaultProperties, context))
        deviceID = nil
        defaultProperties = [:]
        context = [:]
    }

    /// The replay is over: the live identity comes back. The install id stays as the replay
    /// left it (a replayed `reset()` replaced it on disk, for this run too).
    mutating func endReplay() {
        guard let live = keptAside.popLast() else { return }
        deviceID = live.deviceID
        defaultProperties = live.defaults
        context = live.context
    }

    /// `reset()`: forgets the default properties and the device id, or sets `newDeviceID`.
    /// - Returns: Whether `newDeviceID` was refused (it is cleared then, as by `setDeviceID`).
    mutating func reset(to newDeviceID: String?) -> Bool {
        defaultProperties = [:]
        return setDeviceID(newDeviceID)
    }

    /// `setDeviceID`: an empty id, or one over 200 bytes, would be rejected at the edge, so it
    /// clears the id instead (events then carry no `device_id`).
    /// - Returns: Whether the id was refused.
    mutating func setDeviceID(_ id: String?) -> Bool {
        guard let id, Self.isValidDeviceID(id) else {
            deviceID = nil
            return id != nil
        }
        deviceID = id
        return false
    }

    /// `setDefaultProperties`: replaces, never merges; repaired by the same rules as events'.
    mutating func setDefaultProperties(_ properties: [String: PropertyValue], problems: inout [EventValidator.Problem]) {
        var properties = properties
        EventValidator.sanitize(&properties, problems: &problems)
        defaultProperties = properties
    }

    /// Resolves the event's device id and merges the default properties; the event's own
    /// properties win on a clash, and past 200 keys the defaults are the ones left out.
    ///
    /// An explicit id the ingest would refuse is cleared, not replaced by the client's: it
    /// named another device (a server's request for some user), and the client's would
    /// attribute the event to the wrong one.
    /// - Returns: Whether the event's explicit device id was refused (for its line and count).
    @discardableResult
    func apply(to event: inout Event, problems: inout [EventValidator.Problem]) -> Bool {
        var refused = false
        switch event.deviceIDSource {
        case .inherited:
            event.deviceID = inheritedDeviceID
        case .explicit(let id):
            refused = !Self.isValidDeviceID(id)
            event.deviceID = refused ? nil : id
        }
        // Under the event's own and the scope's, which win, past 200 keys too; the automatic
        // context under all of them.
        EventValidator.merge(defaultProperties, under: &event.properties, problems: &problems)
        EventValidator.merge(context, under: &event.properties, problems: &problems)
        return refused
    }

    static func isValidDeviceID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= EventLimits.maxDeviceIDBytes
    }
}
