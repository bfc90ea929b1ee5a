import Foundation

/// The install id the SDK keeps when ``SimpleDataLogsClient/Configuration/usesInstallID`` is on:
/// a random UUID in `<outbox folder>/install-id`, with the outbox, so it needs no user-defaults store
/// and no required-reason API, lives as long as the app's data, and is replaced by `reset()`.
///
/// Read and written on the stages thread (the SDK's own), through the ``FileSystem`` seam. A
/// new id is written to a temporary file, flushed and renamed over the old one, so a crash leaves
/// the old id or the new one, never half of either. A folder that refuses it (or no folder at
/// all) gives an id for this run only, with one warning.
struct InstallIDStore: Sendable {
    let folder: String?
    let fileSystem: any FileSystem

    var path: String? { folder.map { $0 + "/install-id" } }

    /// Whether the folder may hold the id: not another user's, not writable by everyone.
    private var isTrusted: Bool { folder.map { OutboxActor.distrust(of: $0) == nil } ?? false }

    /// The stored id, or a new one stored now.
    func loadOrCreate(logger: SDKLogger) -> String {
        if isTrusted, let path, let bytes = try? fileSystem.read(path), let id = Self.parse(bytes) { return id }
        return replace(logger: logger)
    }

    /// A new id, stored in place of the old one (``SimpleDataLogsClient/reset(deviceID:)``).
    func replace(logger: SDKLogger) -> String {
        let id = EventEncoder.lowercaseString(UniqueID.random())
        // A folder the outbox refuses (another user's) is refused here too, with the outbox's line.
        guard let folder, let path, isTrusted else { return id }
        do {
            try fileSystem.createDirectory(folder, mode: 0o700)
            let temporary = path + ".tmp"
            let descriptor = try fileSystem.open(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            defer { fileSystem.close(descriptor) }
            let bytes = Array((id + "\n").utf8)
            var written = 0
            while written < bytes.count {
                written += try bytes.withUnsafeBytes { try fileSystem.write(descriptor, UnsafeRawBufferPointer(rebasing: $0[written...]), path: temporary) }
            }
            try fileSystem.sync(descriptor, path: temporary)
            try fileSystem.rename(temporary, to: path)
        } catch {
            logger.warning("Could not store the install id in \(folder) (\(error)); this run uses one of its own, and the next run makes another.")
        }
        return id
    }

    /// A stored id: a lowercase UUID, then a newline.
    static func parse(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let uuid = UUID(uuidString: text) else { return nil }
        return EventEncoder.lowercaseString(uuid)
    }
}
