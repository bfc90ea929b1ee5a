/// Facts about this build of the SDK.
public enum SimpleDataLogsVersion {
    /// The SDK's version, sent in the `User-Agent` header and printed by `sdl --version`.
    public static let current = "0.4.0"
}
