/// Facts about the app and the device that the SDK adds to every event as properties, when the
/// app asks for them (``SimpleDataLogsClient/Configuration/automaticContext``; none by default).
///
/// None of them is personal: they say which build ran where, not who used it. They are read
/// once per launch, on the SDK's own thread, before the first event is processed; `track()` never
/// reads them. An event's own property, a scope's (``SimpleDataLogsClient/withProperties(_:isolation:operation:)``)
/// and a default property (``SimpleDataLogsClient/setDefaultProperties(_:)``) of the same name win
/// over the automatic one, so an app that already sets `app_version` keeps its own.
///
/// | option | properties | example |
/// | --- | --- | --- |
/// | ``appVersion`` | `app_version` (`CFBundleShortVersionString`), `app_build` (`CFBundleVersion`) | `"2.3.1"`, `"412"` |
/// | ``operatingSystem`` | `os_name`, `os_version` | `"iOS"`, `"17.4.1"` |
/// | ``deviceModel`` | `device_model` (the hardware model identifier) | `"iPhone15,2"`, `"Mac14,2"` |
/// | ``locale`` | `locale` (the current locale's identifier) | `"en_US"` |
/// | ``buildKind`` | `build_kind`: `debug`, `testflight` or `release` | `"testflight"` |
///
/// A fact the system does not give (no Info.plist in a command-line tool, no hardware model in a
/// container) is left out, not sent empty.
public struct AutomaticContext: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates a set from its bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `app_version` and `app_build`, from the main bundle's Info.plist.
    public static let appVersion = AutomaticContext(rawValue: 1 << 0)
    /// `os_name` and `os_version`, as the `User-Agent` names them.
    public static let operatingSystem = AutomaticContext(rawValue: 1 << 1)
    /// `device_model`: the hardware model identifier (`iPhone15,2`, `Mac14,2`; on Linux the
    /// machine's DMI product name, when it has one).
    public static let deviceModel = AutomaticContext(rawValue: 1 << 2)
    /// `locale`: the current locale's identifier.
    public static let locale = AutomaticContext(rawValue: 1 << 3)
    /// `build_kind`: `debug` when the SDK was built for debugging (Xcode builds packages in the
    /// app's configuration), else `testflight` when the app runs from TestFlight (its App Store
    /// receipt is a sandbox receipt), else `release`.
    public static let buildKind = AutomaticContext(rawValue: 1 << 4)

    /// Every fact above.
    public static let all: AutomaticContext = [.appVersion, .operatingSystem, .deviceModel, .locale, .buildKind]
}
