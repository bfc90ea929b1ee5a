import Foundation

/// Platform attributes of the outbox folder. Apple-only and thin: it cannot be compiled on the
/// Linux machines the SDK is built and tested on (DESIGN.md lists it among the uncompiled
/// adapters); on Linux the folder's mode (0700) is the whole story.
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
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        try? FileManager.default.setAttributes(
            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path
        )
        #endif
        #endif
    }
}
