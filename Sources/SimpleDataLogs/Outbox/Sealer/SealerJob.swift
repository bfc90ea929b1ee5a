/// Disk work the outbox hands to its sealer: the slow calls that must not hold up the journal
/// thread's `write(2)`s (DESIGN.md, "Sealing").
enum SealerJob: Sendable {
    /// Make a full journal durable, then rename it into `batches/`.
    case seal(JournalSeal)
    /// Retire a file the outbox no longer needs (a delivered or evicted batch): emptied and
    /// moved into `spareFolder` as a spare journal while the channel wants spares, else deleted.
    /// A new journal made from a spare needs no new inode, and allocating one was a third of the
    /// journal thread's time at batches of 50 (ext4 scanning past recently deleted inodes,
    /// `perf`). Nil `spareFolder`: always deleted.
    case remove(path: String, spareFolder: String?)
    /// Let go of chunks the journal has written: their events (strings, property dictionaries)
    /// are freed on the sealer's thread, in bulk, instead of one by one on the journal thread,
    /// where freeing them took about a fifth of its instructions per event.
    case discard([[PipelineItem]])
    /// Let go of sealed batches' payloads once their files are durable (kept until then for a
    /// rewrite if the seal fails): one array per event, freed here rather than on the journal
    /// thread.
    case discardBatches([SealedBatch])
}

/// A full journal, closed to appends, waiting for its flush and rename.
struct JournalSeal: Sendable, Equatable {
    /// The journal's sequence: the batch's place in the queue, and how its outcome is matched.
    var sequence: Int
    /// The journal's open descriptor, now the sealer's to sync and close.
    var descriptor: Int32
    /// `areas/<n>/journal-<sequence>.log`.
    var journalPath: String
    /// Where it goes once durable: `areas/<n>/batches/<name>`.
    var batchPath: String
    /// The folder that holds the journal's name (synced once per group, so that a journal made
    /// since the last group survives a power loss under its name too).
    var folder: String
    /// The area's `tmp/`, where the sealer makes empty spare journals after the group, so that
    /// the journal thread opens the next journal by a rename, never by allocating an inode.
    var spareFolder: String
}

/// What became of one ``JournalSeal``.
struct SealOutcome: Sendable, Equatable {
    var sequence: Int
    /// Nil when the journal is durable and renamed; else the call that failed (the journal is
    /// then still where it was, under its own name).
    var failure: FileSystemError?
}
