import Foundation

extension SimpleDataLogsClient {
    /// Makes this run's intake log in the storage folder (``IntakeLogFiles``), on the caller's
    /// thread, inside `configure`: from `configure`'s return on, every call is in a file a kill
    /// cannot take back, the events held before it included (the intake appends them when the
    /// log is installed).
    ///
    /// The one piece of file I/O `configure` does for the log, beside the crash record file it
    /// already makes: an `open`, a `flock`, an allocation of the log's size (4 or 8 MiB, done in
    /// extents, not written) and an `mmap`: about 0.1 ms here (`--only configure`). Everything
    /// else on disk (the area, recovery, the earlier runs' replay) stays on the outbox's thread.
    /// - Returns: The log, or nil (after one line) when it cannot be had: the folder is
    ///   distrusted (the outbox says why), or refuses the file; the client then runs as without it.
    func makeIntakeLog(in directory: String, owner: AreaOwner?, slotCount: Int, logger: SDKLogger) -> IntakeLogFile? {
        // A folder another user can write to is never mapped: the outbox refuses it, and says so.
        guard OutboxActor.distrust(of: directory) == nil else { return nil }
        do {
            try faults.fileSystem.confined(to: directory).createDirectory(directory, mode: 0o700)
        } catch {
            logger.warning("The intake log could not be made: the storage folder \(directory) refused it (\(error)). Events wait in memory until the journal holds them, as without it.")
            return nil
        }
        var failure: String?
        let milliseconds = Int64((wallClock.now().timeIntervalSince1970 * 1000).rounded(.down))
        guard let file = IntakeLogFiles.create(in: directory, owner: owner, slotCount: slotCount, milliseconds: milliseconds, failure: &failure) else {
            logger.warning("The intake log could not be made in \(directory) (\(failure ?? "unknown")): events wait in memory until the journal holds them, as without it.")
            return nil
        }
        return file
    }
}
