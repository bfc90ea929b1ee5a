#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads a sealed batch's file for the uploader, on the uploader's own thread, and checks that
/// what it read is the batch it meant to read: the header's id and the number of intact events
/// (each record's checksum is checked by the scan) must be those the outbox queued under that id.
///
/// Why the check: a sealed file never changes while it is queued, but once the caps evict its
/// batch the sealer may empty the file and make it the next journal (a spare, `SealerJob.remove`).
/// A read that opened the file before that reads whatever the inode holds afterwards: nothing,
/// part of the batch, or the next journal's records under another header. Nothing read that way
/// is ever sent under the evicted batch's id (issue 24).
struct BatchReader: Sendable {
    /// The outbox's file system, confined to the storage folder.
    let fileSystem: any FileSystem

    /// What reading one batch found.
    enum Read: Sendable, Equatable {
        /// The batch as sealed.
        case loaded(SealedBatch)
        /// Its file is not there (`ENOENT`): evicted or delivered meanwhile, or deleted behind
        /// the SDK's back. The outbox decides which.
        case vanished
        /// The file is there but could not be read now (`EIO`, `EMFILE`, a protection class
        /// while the device is locked): kept, tried again later.
        case unreadable(FileSystemError)
        /// The file holds something else than the batch queued under its name (why, in words):
        /// never sent under this id; kept, tried again later.
        case mismatched(String)
    }

    /// Reads `batch` from `folder` (its area's `batches/`), or takes it from memory when the
    /// disk refused it. Blocks the calling thread (the uploader's own) for the read.
    @available(*, noasync, message: "blocks on the disk: call it from the uploader's own thread")
    func read(_ batch: StoredBatch, in folder: String?) -> Read {
        if let held = batch.heldInMemory { return .loaded(held) }
        guard let folder else { return .vanished }
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.read(folder + "/" + batch.fileName)
        } catch where error.code == ENOENT {
            return .vanished
        } catch {
            return .unreadable(error)
        }
        return Self.check(bytes, against: batch)
    }

    /// The batch in `bytes`, when they hold `batch` as it was queued: its header's id (when the
    /// header record is intact: a damaged header costs nothing but this check, the name carries
    /// the id) and exactly its number of intact events. Pure.
    static func check(_ bytes: [UInt8], against batch: StoredBatch) -> Read {
        let contents = BatchFile.decode(bytes)
        if let reason = contents.headerMismatch(expected: EventEncoder.lowercaseString(batch.id)) {
            return .mismatched(reason)
        }
        guard contents.payloads.count == batch.eventCount else {
            return .mismatched("\(contents.payloads.count) intact events where \(batch.eventCount) were sealed")
        }
        return .loaded(SealedBatch(id: batch.id, sequence: batch.sequence, path: batch.path, payloads: contents.payloads))
    }
}
