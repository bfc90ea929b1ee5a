#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import Foundation

/// The intake logs of a storage folder: one per client run, `intake-<id>-<tag>.log` in the
/// folder's root, made by `configure` on the caller's thread and locked (`flock`) by its process
/// for as long as the log is mapped.
///
/// Why at `configure` and not once the outbox holds its area: the area is taken on the outbox's
/// thread, after `configure` returned, and what the app tracked in between was in memory only
/// (the *launch window*, 3 to 6 ms in `reliability`, when a process killed during launch lost
/// most). A log needs no area: its own lock says whether its run is alive, as a crash record's
/// does (``CrashRecordFiles``), so it can be made before anything else, and the events held before
/// `configure` go into it at `configure`.
///
/// `<id>` is a version-7 UUID, so names sort by the time their run began and a launch replays
/// ended runs oldest first. `<tag>` is the client's destination (``AreaOwner/tag``): a launch
/// replays only its own destination's logs (and those of the keys it replaced), as with areas;
/// an untagged log (a client that cannot send) is anyone's.
package enum IntakeLogFiles {
    static let prefix = "intake-"
    static let suffix = ".log"
    /// The id and the tag (nil for an untagged log) a log's name carries; nil for any other name,
    /// the numbered `intake-<n>.log` of earlier versions (in area folders) included.
    package static func parts(ofName name: String) -> (id: UUID, tag: String?)? {
        RunFiles.parts(ofName: name, prefix: prefix, suffix: suffix)
    }

    /// The name of a log for `id` and `owner`'s destination.
    static func name(id: UUID, owner: AreaOwner?) -> String {
        RunFiles.name(id: id, owner: owner, prefix: prefix, suffix: suffix)
    }

    /// Whether a client sending for `owners` (its own destination first, then those of the keys
    /// it replaced) may replay the log named `name`: an untagged one, or one tagged with any of
    /// them.
    static func belongs(_ name: String, to owners: [AreaOwner]) -> Bool {
        guard let (_, tag) = parts(ofName: name) else { return false }
        guard let tag else { return true }
        return owners.contains { $0.tag == tag }
    }

    /// Makes this run's log in `folder` (the storage root, which must exist), locked, allocated
    /// and mapped, with room for `slotCount` slots.
    ///
    /// The lock is taken right after the file is made, so a launch racing this one could take the
    /// new file for an ended run's and delete it in between: the check that the name still leads
    /// to the locked file catches that, and a new file is made.
    /// - Parameters:
    ///   - milliseconds: The wall clock's time, the first 48 bits of the name's id.
    ///   - failure: Set to the step that failed, and its `errno`, when nil is returned.
    /// - Returns: The log, or nil when no file could be made, locked, allocated or mapped.
    static func create(
        in folder: String, owner: AreaOwner?, slotCount: Int, milliseconds: Int64, failure: inout String?
    ) -> IntakeLogFile? {
        var ids = EventIDGenerator()
        for _ in 0..<3 {
            let path = folder + "/" + name(id: ids.next(milliseconds: milliseconds), owner: owner)
            guard let file = IntakeLogFile.create(at: path, slotCount: slotCount, firstSequence: 1, failure: &failure) else {
                // Half made (no room for it, say): nothing of it is kept. Tried again under a new
                // name, as a racing launch's lock also fails it.
                unlink(path)
                continue
            }
            if file.stillNamed { return file }
            failure = "the file was taken while it was being made"
        }
        return nil
    }

    /// Takes the logs of ended runs in `folder` that a client sending for `owners` may replay,
    /// oldest first: each one locked, so that of two launches racing for it exactly one replays
    /// it. A log held by a live process (its lock is taken) is left alone, and so is another
    /// destination's.
    static func takeLeftovers(in folder: String, owners: [AreaOwner], fileSystem: any FileSystem) -> [LeftoverIntakeLog] {
        guard let names = try? fileSystem.contents(ofDirectory: folder) else { return [] }
        var taken: [LeftoverIntakeLog] = []
        // Every one: a log left for a later launch is a kill's worth of calls that waits (a
        // crash-looping process leaves one per run, and each launch must catch up with all).
        for name in names.sorted() where belongs(name, to: owners) {
            let path = folder + "/" + name
            guard let descriptor = try? fileSystem.open(path, flags: O_RDONLY | O_NONBLOCK, mode: 0) else { continue }
            // Held by a live run (or taken by a launch racing this one), already replaced, or
            // not a regular file (a FIFO planted under a log's name).
            guard fileSystem.tryLock(descriptor), RunFiles.stillNames(descriptor, path), RunFiles.isRegularFile(descriptor) else {
                fileSystem.close(descriptor)
                continue
            }
            taken.append(LeftoverIntakeLog(path: path, descriptor: descriptor))
        }
        return taken
    }
}

/// A log an ended run left, locked by this process through `descriptor` until it is deleted
/// (or this process ends: the next launch then takes it again).
struct LeftoverIntakeLog: Sendable {
    /// The log's path.
    var path: String
    /// The open, locked file.
    var descriptor: Int32
}
