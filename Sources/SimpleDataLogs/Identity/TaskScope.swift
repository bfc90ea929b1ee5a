/// What `withDeviceID` and `withProperties` set for a task and its child tasks, in one task-local
/// value, so that `track()` pays one task-local read (about 125 instructions, callgrind) for
/// both, not one each.
struct TaskScope: Sendable {
    /// The device id of the request being handled, if a scope set one.
    var deviceID: String?
    /// Its properties, inner scopes merged over outer ones, if a scope set any.
    var properties: [String: PropertyValue]?

    /// The scope of the current task, if any.
    @TaskLocal static var current: TaskScope?

    /// The current scope with `deviceID` set.
    static func with(deviceID: String) -> TaskScope {
        var scope = current ?? TaskScope()
        scope.deviceID = deviceID
        return scope
    }

    /// The current scope with `properties` merged over the enclosing scope's (once, on entering
    /// the scope, never per event).
    static func with(properties: [String: PropertyValue]) -> TaskScope {
        var scope = current ?? TaskScope()
        scope.properties = scope.properties.map { $0.merging(properties) { _, inner in inner } } ?? properties
        return scope
    }
}
