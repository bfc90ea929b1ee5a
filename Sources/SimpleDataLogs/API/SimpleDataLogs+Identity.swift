extension SimpleDataLogs {
    /// Forgets who was using the app, for a logout; see ``SimpleDataLogsClient/reset(deviceID:)``.
    /// - Parameter deviceID: The next user's anonymous id, or `nil` for none.
    public static func reset(deviceID: String? = nil) {
        shared.reset(deviceID: deviceID)
    }

    /// Pauses or resumes sending; see ``SimpleDataLogsClient/setOffline(_:)``.
    /// - Parameter offline: Whether to pause sending.
    public static func setOffline(_ offline: Bool) {
        shared.setOffline(offline)
    }

    /// Whether sending is paused by ``setOffline(_:)``.
    public static var isOffline: Bool { shared.isOffline }

    /// Runs `operation` with `properties` on every event it tracks; see
    /// ``SimpleDataLogsClient/withProperties(_:isolation:operation:)``.
    /// - Parameters:
    ///   - properties: The properties for the events tracked inside.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    public static func withProperties<Result>(
        _ properties: [String: PropertyValue],
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await shared.withProperties(properties, isolation: isolation, operation: operation)
    }

    /// Runs `operation` and tracks `name` with its duration and outcome when it ends; see
    /// ``SimpleDataLogsClient/timed(_:properties:isolation:operation:)``.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: The event's own properties.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work to time.
    /// - Returns: What `operation` returns.
    public static func timed<Result>(
        _ name: String,
        properties: [String: PropertyValue] = [:],
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await shared.timed(name, properties: properties, isolation: isolation, operation: operation)
    }
}
