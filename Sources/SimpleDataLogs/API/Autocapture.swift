/// What the SDK sends by itself, without a `track` call. Off until you pass it to `configure`.
///
/// ```swift
/// SimpleDataLogs.configure(ingestKey: "sdl_pub_…", autocapture: [.sessions, .crashes])
/// ```
public struct Autocapture: OptionSet, Sendable, Hashable {
    /// The raw bits of the set.
    public let rawValue: Int

    /// Creates a set from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `app_launched` on every launch, with `is_first_launch`.
    public static let appLaunches = Autocapture(rawValue: 1 << 0)
    /// `session_start`, a `session_id` on every event, and `session_end` with `duration_s`.
    public static let sessions = Autocapture(rawValue: 1 << 1)
    /// A crash is saved when it happens and sent as `app_crashed` on the next launch: fatal
    /// signals (Swift traps such as `fatalError` or a force-unwrapped `nil`, bad pointers,
    /// `abort()`) everywhere, and uncaught `NSException`s on Apple platforms.
    public static let crashes = Autocapture(rawValue: 1 << 2)
    /// All three: launches, sessions and crashes.
    public static let all: Autocapture = [.appLaunches, .sessions, .crashes]
}
