/// When a session ends.
public enum SessionMode: Sendable, Hashable {
    /// After 30 minutes away from the app: on macOS not active, on iOS in the background. On Linux,
    /// where nothing reports activation, it behaves as `inactivityTimeout(minutes: 30)` unless the
    /// app feeds an activity source.
    case activation
    /// After that many minutes without a `track` call. Suits menu-bar apps and servers.
    case inactivityTimeout(minutes: Int)
}
