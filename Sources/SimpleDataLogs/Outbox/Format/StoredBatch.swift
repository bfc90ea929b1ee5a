import Foundation

/// What the outbox knows about one sealed batch without reading it again.
struct StoredBatch: Sendable, Equatable {
    var id: UUID
    var sequence: Int
    var path: String
    var eventCount: Int
    /// The file's size, or the encoded size while it is held in memory.
    var byteCount: Int
    /// The batch itself, while the disk refuses it; `nil` once it is a file.
    var heldInMemory: SealedBatch?
    /// How many of its events are not under the journal's watermark yet (they were never in a
    /// whole journal file): counted when the batch becomes a file.
    var undurableEvents = 0

    var fileName: String { JournalName.batch(sequence: sequence, path: path, id: EventEncoder.lowercaseString(id)) }

    /// Its events while it is held in memory (not a file), else 0.
    var heldEvents: Int { heldInMemory == nil ? 0 : eventCount }

    var usage: OutboxCaps.Usage { OutboxCaps.Usage(events: eventCount, bytes: byteCount, files: 1) }

    /// Oldest first: by sequence, then by split path (a left half before its right half).
    static func isOlder(_ lhs: StoredBatch, _ rhs: StoredBatch) -> Bool {
        (lhs.sequence, lhs.path) < (rhs.sequence, rhs.path)
    }
}
