import Foundation

/// Where the outbox lives, decided once at `configure`.
///
/// In order: the folder given in the configuration; `SDL_STORAGE_DIR` (for containers); then the
/// platform's place for app data: on Apple, `Application Support/<bundle id>/SimpleDataLogs/`;
/// on Linux, `$XDG_DATA_HOME` (else `~/.local/share`)`/<app id>/SimpleDataLogs/`, where the app
/// id is the executable's name unless configured.
package enum StorageLocation {
    /// The outbox folder, or `nil` when there is none to use (no `HOME` on Linux).
    /// - Parameters:
    ///   - configured: The folder given in the configuration, if any.
    ///   - appID: The configured app id; the bundle id or executable name when `nil`.
    ///   - environment: Where `SDL_STORAGE_DIR`, `XDG_DATA_HOME` and `HOME` are read.
    package static func resolve(configured: String?, appID: String?, environment: [String: String]) -> String? {
        if let configured, !configured.isEmpty { return configured }
        if let fromEnvironment = environment["SDL_STORAGE_DIR"], !fromEnvironment.isEmpty { return fromEnvironment }
        let app = sanitizedAppID(appID ?? defaultAppID)
        #if canImport(Darwin)
        guard let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else { return nil }
        return support.appendingPathComponent(app).appendingPathComponent("SimpleDataLogs").path
        #else
        let base: String
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = dataHome
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.local/share"
        } else {
            return nil
        }
        return base + "/" + app + "/SimpleDataLogs"
        #endif
    }

    /// The bundle id on Apple platforms, the executable's name elsewhere.
    static var defaultAppID: String {
        #if canImport(Darwin)
        if let bundleID = Bundle.main.bundleIdentifier { return bundleID }
        #endif
        return ProcessInfo.processInfo.processName
    }

    /// An app id usable as one folder name.
    static func sanitizedAppID(_ appID: String) -> String {
        let cleaned = appID.map { $0 == "/" || $0 == "\0" ? "_" : $0 }
        let name = String(cleaned)
        return name.isEmpty || name == "." || name == ".." ? "app" : name
    }
}
