/// The task-local properties that `withProperties(_:operation:)` sets, read inside `track()` and
/// merged into the event by the identity stage (never in `track()` itself).
enum PropertyScope {
    /// The properties of the request being handled, inner scopes merged over outer ones.
    @TaskLocal static var current: [String: PropertyValue]?

    /// The properties a new scope holds: the enclosing scope's, with `properties` winning.
    static func entering(_ properties: [String: PropertyValue]) -> [String: PropertyValue] {
        guard let outer = current else { return properties }
        return outer.merging(properties) { _, inner in inner }
    }
}
