/// The task-local device id that `withDeviceID(_:operation:)` sets, read inside `track()`.
enum DeviceIDScope {
    /// The device id of the request being handled, if a scope set one.
    @TaskLocal static var current: String?
}
