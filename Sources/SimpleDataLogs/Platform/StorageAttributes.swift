import Foundation

/// Platform attributes of the outbox folder. Apple-only and thin: its Apple branches are not part of
/// a Linux build (Linux CI type-checks them; DESIGN.md, "How the Apple code is checked"); on Linux
/// the folder's mode (0700) is the whole story.
enum StorageAttributes {
    /// Excludes the folder from backups, and on iOS gives it the
    /// `completeUntilFirstUserAuthentication` protection class, so background work on a locked
    /// device can still track and send. Failures are ignored: the outbox works without them.
    static func apply(to path: String) {
        #if canImport(Darwin)
        var url = URL(fileURLWithPath: path, isDirectory: true)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        try? url.setResourceValues(values)
        #endif
        protect(path)
    }

    /// Gives a folder the `completeUntilFirstUserAuthentication` protection class on iOS; files
    /// and folders made in it later inherit it. Called for the root before anything is made in
    /// it, and for every folder of the outbox, so an app whose default class is stricter
    /// (`complete`) still lets the SDK write while the device is locked. Nothing elsewhere.
    static func protect(_ path: String) {
        #if os(iOS)
        try? FileManager.default.setAttributes(
            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path
        )
        #endif
    }
}
