import Foundation

/// The install id the SDK keeps when ``SimpleDataLogsClient/Configuration/usesInstallID`` is on:
/// a random UUID in `<outbox folder>/install-id`, with the outbox, so it needs no user-defaults store
/// and no required-reason API, lives as long as the app's data, and is replaced by `reset()`.
///
/// Read and written on the stages thread (the SDK's own), through the ``FileSystem`` seam. A
/// new id is written to a temporary file of its own and flushed, so a crash leaves the old id or
/// the new one, never half of either. The first id is then linked into place, which fails if
/// another process (an app and its extension on one App Group folder, launched together) stored
/// one first: that one is read and used, so both send the same id. `reset()`'s new id is
/// renamed over the old one. A folder that refuses it (or no folder at all) gives an id for this
/// run only, with one warning.
struct InstallIDStore: Sendable {
    let folder: String?
    let fileSystem: any FileSystem

    var path: String? { folder.map { $0 + "/install-id" } }

    /// Whether the folder may hold the id: not another user's, not writable by everyone.
    private var isTrusted: Bool { folder.map { OutboxActor.distrust(of: $0) == nil } ?? false }

    /// The stored id, or a new one stored now; the one another process stored first, when two
    /// race.
    func loadOrCreate(logger: SDKLogger) -> String {
        if let id = stored() { return id }
        return store(replacing: false, logger: logger)
    }

    /// A new id, stored in place of the old one (``SimpleDataLogsClient/reset(deviceID:)``).
    func replace(logger: SDKLogger) -> String {
        store(replacing: true, logger: logger)
    }

    private func stored() -> String? {
        guard isTrusted, let path, let bytes = try? fileSystem.read(path) else { return nil }
        return Self.parse(bytes)
    }

    private func store(replacing: Bool, logger: SDKLogger) -> String {
        let id = EventEncoder.lowercaseString(UniqueID.random())
        // A folder the outbox refuses (another user's) is refused here too, with the outbox's line.
        guard let folder, let path, isTrusted else { return id }
        // Named after the id: two processes never write one temporary file.
        let temporary = path + "." + id + ".tmp"
        do {
            try fileSystem.createDirectory(folder, mode: 0o700)
            let descriptor = try fileSystem.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            defer { fileSystem.close(descriptor) }
            let bytes = Array((id + "\n").utf8)
            var written = 0
            while written < bytes.count {
                written += try bytes.withUnsafeBytes { try fileSystem.write(descriptor, UnsafeRawBufferPointer(rebasing: $0[written...]), path: temporary) }
            }
            try fileSystem.sync(descriptor, path: temporary)
            guard !replacing else {
                try fileSystem.rename(temporary, to: path)
                return id
            }
            if try linkedIntoPlace(temporary, path: path) {
                try? fileSystem.remove(temporary)
                return id
            }
            // Another process stored one since we looked: use it. A file there that is no id
            // (damaged) is replaced, as before.
            if let theirs = stored() {
                try? fileSystem.remove(temporary)
                return theirs
            }
            try fileSystem.rename(temporary, to: path)
        } catch {
            try? fileSystem.remove(temporary)
            logger.warning("Could not store the install id in \(folder) (\(error)); this run uses one of its own, and the next run makes another.")
        }
        return id
    }

    /// Links the written id into place: `false` when a file is there already.
    private func linkedIntoPlace(_ temporary: String, path: String) throws(FileSystemError) -> Bool {
        do {
            try fileSystem.linkNew(temporary, to: path)
            return true
        } catch {
            guard error.code == EEXIST else { throw error }
            return false
        }
    }

    /// A stored id: a lowercase UUID, then a newline.
    static func parse(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let uuid = UUID(uuidString: text) else { return nil }
        return EventEncoder.lowercaseString(uuid)
    }
}
