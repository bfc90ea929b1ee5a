#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The crash record files of a storage folder: one per installed recorder, named
/// `crash-<uuid>.record` and locked (`flock`) by the process that writes to it for as long as it
/// lives.
///
/// Why a file per recorder and a lock: several processes (or several clients of one process) may
/// share a storage folder. With one shared name, the second launch would take and delete the first
/// one's live file, and the first process's crash would then be written to a file nobody can
/// find. Here a launch takes only the records whose lock it can get, which are those of processes
/// that have ended; two launches racing for one record are settled by the lock, so exactly one of
/// them sends it.
///
/// A record carries its client's destination in its name, `crash-<uuid>-<tag>.record` (the tag is
/// ``AreaOwner/tag``), so that only a client with the same key and endpoint sends the crash, as
/// with the outbox's areas; a record with no tag (earlier versions, a client that cannot send) is
/// anyone's.
///
/// The `<uuid>` becomes the `app_crashed` event's id. A record is deleted only once that event is
/// on disk (``OutboxActor``), and until then its lock stays held, so a launch killed in between
/// leaves the record for the next one, which sends it again under the same id: the edge counts
/// an `event_id` once, so the crash is never lost and never counted twice.
package enum CrashRecordFiles {
    static let prefix = "crash-"
    static let suffix = ".record"
    /// The one shared name of earlier versions, still taken (with a fresh event id) after an upgrade.
    static let legacyName = "crash.record"
    /// A record holds at most 128 frames and the module map; anything larger is not ours and is
    /// read only this far.
    static let maxRecordBytes = 1 << 20
    /// Records taken per launch: a folder flooded with crash files costs a bounded launch.
    static let maxTakenPerLaunch = 16

    /// The name of a record file, whether it is this version's or the legacy one.
    static func isRecordName(_ name: String) -> Bool {
        name == legacyName || eventID(fromName: name) != nil
    }

    /// The event id a record file's name carries; nil for any other name.
    static func eventID(fromName name: String) -> UUID? {
        parts(ofName: name)?.id
    }

    /// The name of the record file `id` for `owner` (untagged for none).
    static func name(id: UUID, owner: AreaOwner?) -> String {
        RunFiles.name(id: id, owner: owner, prefix: prefix, suffix: suffix)
    }

    /// The id and the owner's tag (nil for an untagged record) a record file's name carries.
    static func parts(ofName name: String) -> (id: UUID, tag: String?)? {
        RunFiles.parts(ofName: name, prefix: prefix, suffix: suffix)
    }

    /// Whether a client of `owner` may take the record named `name`: an untagged one, or one
    /// tagged with its own destination or, for a client that sends, with a key it replaced at
    /// the same endpoint (`formerOwners`: `previousIngestKeys`, as for areas).
    static func belongs(_ name: String, to owner: AreaOwner?, formerOwners: [AreaOwner] = []) -> Bool {
        guard name != legacyName else { return true }
        guard let tag = parts(ofName: name)?.tag else { return true }
        guard let owner else { return false }
        return tag == owner.tag || formerOwners.contains { $0.tag == tag }
    }

    /// Creates an empty record file for this process's recorder and locks it.
    ///
    /// The lock is taken after the file is created, so another launch could take (and delete) the
    /// empty file in between: the check that the name still leads to the locked file catches
    /// that, and a new file is made.
    /// - Parameter owner: The recording client's destination, tagged in the name; `nil` for none.
    /// - Throws: What the folder answered, when it refuses the file.
    package static func create(in folder: String, owner: AreaOwner? = nil, fileSystem: any FileSystem) throws(FileSystemError) -> CrashRecordFile {
        var lastError = FileSystemError(code: EAGAIN, operation: "flock", path: folder)
        for _ in 0..<3 {
            let id = UniqueID.random()
            let path = folder + "/" + name(id: id, owner: owner)
            let descriptor = try fileSystem.open(path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            if fileSystem.tryLock(descriptor), RunFiles.stillNames(descriptor, path) {
                return CrashRecordFile(path: path, descriptor: descriptor, eventID: id, fileSystem: fileSystem)
            }
            fileSystem.close(descriptor)
            lastError = FileSystemError(code: EAGAIN, operation: "flock", path: path)
        }
        throw lastError
    }

    /// Takes the records of ended processes: each one locked, its bytes read. Empty records (a
    /// process that ended without crashing) are deleted here; the others stay on disk, locked,
    /// until ``CrashRecordFile/discard()`` or ``CrashRecordFile/release()``. Records of another
    /// key or endpoint than `owner`'s are left for their client, untouched.
    package static func takeLeftovers(
        in folder: String, owner: AreaOwner? = nil, formerOwners: [AreaOwner] = [], fileSystem: any FileSystem
    ) -> [LeftoverCrashRecord] {
        guard let names = try? fileSystem.contents(ofDirectory: folder) else { return [] }
        var taken: [LeftoverCrashRecord] = []
        for name in names.sorted() where isRecordName(name) && belongs(name, to: owner, formerOwners: formerOwners) {
            guard taken.count < maxTakenPerLaunch else { break }
            let path = folder + "/" + name
            guard let descriptor = try? fileSystem.open(path, flags: O_RDONLY, mode: 0) else { continue }
            // Held by a live process (or taken by a launch racing this one), or already replaced.
            guard fileSystem.tryLock(descriptor), RunFiles.stillNames(descriptor, path), RunFiles.isRegularFile(descriptor) else {
                fileSystem.close(descriptor)
                continue
            }
            let file = CrashRecordFile(path: path, descriptor: descriptor, eventID: eventID(fromName: name) ?? UniqueID.random(), fileSystem: fileSystem)
            let bytes = readAll(descriptor)
            if bytes.isEmpty {
                file.discard()
            } else {
                taken.append(LeftoverCrashRecord(file: file, bytes: bytes))
            }
        }
        return taken
    }

    /// Up to ``maxRecordBytes`` from the start of the file.
    private static func readAll(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < maxRecordBytes {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }
}

/// One crash record file, locked by this process through `descriptor`.
package struct CrashRecordFile: Sendable {
    /// The file's path.
    package var path: String
    /// The open, locked file; the recorder writes through it at a crash.
    package var descriptor: Int32
    /// The id its `app_crashed` event is sent under.
    var eventID: UUID
    let fileSystem: any FileSystem

    /// Deletes the file, then gives up the lock.
    package func discard() {
        try? fileSystem.remove(path)
        fileSystem.close(descriptor)
    }

    /// Gives up the lock and leaves the file for a later launch.
    package func release() {
        fileSystem.close(descriptor)
    }
}

/// A record an ended process left, with its bytes, still locked by this process.
package struct LeftoverCrashRecord: Sendable {
    package var file: CrashRecordFile
    package var bytes: [UInt8]
}
