import Foundation

extension UploadRequestBuilder {
    /// This machine's OS name and version for the `User-Agent`, read from `ProcessInfo`: for
    /// example `("Linux", "6.18.44")` (the kernel's version), `("iOS", "17.4.1")`, `("macOS", "14.4")`.
    ///
    /// The version is the numeric `operatingSystemVersion`, not `operatingSystemVersionString`,
    /// whose text differs by platform (on Linux it is the distribution's name, such as
    /// `Debian GNU/Linux 12 (bookworm)`, with no version of the kernel). Read it once, when the
    /// uploader starts.
    /// - Returns: The name and the version.
    package static func currentOperatingSystem() -> (name: String, version: String) {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let text = version.patchVersion > 0
            ? "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
            : "\(version.majorVersion).\(version.minorVersion)"
        return (operatingSystemName, text)
    }

    /// The OS this build runs on, by compile-time platform.
    private static var operatingSystemName: String {
        #if os(iOS)
        return "iOS"
        #elseif os(macOS)
        return "macOS"
        #elseif os(tvOS)
        return "tvOS"
        #elseif os(watchOS)
        return "watchOS"
        #elseif os(visionOS)
        return "visionOS"
        #elseif os(Linux)
        return "Linux"
        #elseif os(Windows)
        return "Windows"
        #elseif os(Android)
        return "Android"
        #else
        return "unknown"
        #endif
    }
}
