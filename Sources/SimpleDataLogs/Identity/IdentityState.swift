/// The identity rules, as a pure value: the device id, the default properties, and how they
/// apply to an event. The ``IdentityActor`` holds one and feeds it the ordered intake.
struct IdentityState: Sendable {
    private(set) var deviceID: String?
    private(set) var defaultProperties: [String: PropertyValue] = [:]
    /// The install id the SDK keeps (opt-in): the device id of events for which the app set none.
    var installID: String?

    /// The device id an event gets when it names none: the app's, else the install id.
    var inheritedDeviceID: String? { deviceID ?? installID }

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
        // Under the event's own and the scope's, which win, past 200 keys too.
        EventValidator.merge(defaultProperties, under: &event.properties, problems: &problems)
        return refused
    }

    static func isValidDeviceID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= EventLimits.maxDeviceIDBytes
    }
}
