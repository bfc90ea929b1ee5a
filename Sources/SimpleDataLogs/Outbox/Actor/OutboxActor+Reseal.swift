/// Recovery's two ways of sealing again what launch finds: the journals a crash left, and batch
/// files that hold another batch than their name says; and the line for damaged data it skips.
extension OutboxActor {
    /// Seals each journal left by a crash into a batch of its own, keeping every intact record.
    func recoverJournals(_ journals: [(sequence: Int, path: String)], in area: AreaLayout) {
        for journal in journals.sorted(by: { $0.sequence < $1.sequence }) {
            guard fileSystem.isRegularFile(journal.path), let bytes = try? fileSystem.read(journal.path) else {
                if let layout { quarantine(journal.path, in: layout, reason: "unreadable journal") }
                continue
            }
            // The same format as a batch file: the header record is skipped.
            let contents = BatchFile.decode(bytes)
            let payloads = contents.payloads
            reportDamage(contents.damage, in: journal.path)
            // The intake log may replay what a journal already holds (a kill between the write
            // and the log's release): those copies are dropped as they arrive. Only read when
            // launch queued a replay (it runs before this), so a launch without one parses nothing.
            if replayPending {
                for payload in payloads { if let id = Self.eventID(inPayload: payload) { replayedJournalIDs.insert(id) } }
            }
            state.open.reserve(above: journal.sequence)
            guard !payloads.isEmpty else {
                try? fileSystem.remove(journal.path)
                continue
            }
            // A journal holds at most one batch, but a damaged one may hold anything: respect
            // the batch rules when re-sealing, splitting into halves' paths as needed.
            var allOnDisk = true
            for (index, chunk) in RecoveryRules.chunked(payloads, policy: policy).enumerated() {
                let path = index == 0 ? "r" : "r" + String(repeating: "1", count: index)
                let batch = SealedBatch(id: UniqueID.random(), sequence: journal.sequence, path: path, payloads: chunk)
                let stored = persist(batch, retiringJournal: nil)
                if stored.heldInMemory != nil { allOnDisk = false }
                insertSealed(stored)
            }
            // The journal is the only durable copy until every batch made from it is a file (a
            // full disk holds them in memory): kept until then. The next launch deletes it once
            // a batch of its sequence exists, or seals it again (the edge deduplicates by
            // event_id what was sent meanwhile).
            if allOnDisk { try? fileSystem.remove(journal.path) }
        }
    }

    /// One log line per damaged file, with the offsets, and the count.
    func reportDamage(_ damage: [JournalRecord.Damage], in path: String) {
        guard !damage.isEmpty else { return }
        let runs = damage.map { "\($0.length) bytes at \($0.offset)" }.joined(separator: ", ")
        counters.update { $0.damagedRecords += damage.count }
        logger.warning("Skipped damaged data in \(path): \(runs). Every intact record around it was kept.")
    }

    /// Batch files whose header names another batch, or more than one: a file copied in under
    /// another name, or files joined. Queued under its name's id, such a file would be refused by
    /// the uploader's check on every pass (a read cannot tell it from a recycled file, decision
    /// 0034) and kept until the caps evicted it. Instead, after the folder's other files are
    /// queued:
    /// - its events that a file of the folder named by its header already holds (the original of
    ///   a copy), or that an earlier such file held, are not sealed again: each event goes once,
    ///   under one batch's id;
    /// - the rest become new batches under fresh ids (the classic protocol), queued like any
    ///   other;
    /// - the file is deleted once they are on disk (until then it is their only durable copy: a
    ///   full disk holds them in memory, and the next launch does this again).
    /// One warning line per file.
    func resealForeign(_ files: [ForeignBatchFile], among names: [String], in folder: OpenedFolder) {
        var sealedAgain: Set<[UInt8]> = []
        for file in files {
            var seen = sealedAgain
            for named in Set(file.contents.headerIDs) {
                seen.formUnion(payloads(ofBatch: named, among: names, except: file.name, in: folder))
            }
            let fresh = file.contents.payloads.filter { seen.insert($0).inserted }
            sealedAgain.formUnion(fresh)
            var allOnDisk = true
            var made = 0
            // (`chunked` makes one empty chunk of no events: none is wanted.)
            for (index, chunk) in (fresh.isEmpty ? [] : RecoveryRules.chunked(fresh, policy: policy)).enumerated() {
                let path = index == 0 ? "r" : "r" + String(repeating: "1", count: index)
                let stored = persist(SealedBatch(id: UniqueID.random(), sequence: file.sequence, path: path, payloads: chunk), retiringJournal: nil)
                if stored.heldInMemory != nil { allOnDisk = false }
                insertSealed(stored)
                made += 1
            }
            let held = file.contents.payloads.count - fresh.count
            logger.warning(
                "Batch file \(folder.path(of: file.name)) did not hold the batch its name gives (\(file.reason)): "
                    + (made == 0 ? "" : "\(fresh.count) of its events go out as \(made) new batch\(made == 1 ? "" : "es") under fresh ids; ")
                    + (held == 0 ? "" : "\(held) were already queued in another file; ")
                    + (allOnDisk ? "the file is deleted." : "the file is kept until the new batches are on disk.")
            )
            if allOnDisk { try? fileSystem.remove(file.name, in: folder) }
        }
    }

    /// The events of the batch with the lowercase `id`, read from its file in `folder` if one of
    /// `names` (other than `exception`) is it; none otherwise.
    private func payloads(ofBatch id: String, among names: [String], except exception: String, in folder: OpenedFolder) -> [[UInt8]] {
        for name in names {
            guard let parts = JournalName.batchParts(name), parts.id.lowercased() == id else { continue }
            // Launch renamed it to its canonical (lowercase) name, if it was not already.
            let canonical = JournalName.batch(sequence: parts.sequence, path: parts.path, id: id)
            guard canonical != exception, let bytes = try? fileSystem.readRegularFile(canonical, in: folder) else { continue }
            let contents = BatchFile.decode(bytes)
            if contents.headerMismatch(expected: id) == nil { return contents.payloads }
        }
        return []
    }
}

/// A batch file found at launch whose header names another batch than its name (``OutboxActor/resealForeign(_:among:in:)``).
struct ForeignBatchFile {
    var name: String
    var sequence: Int
    var contents: BatchFile.Contents
    var reason: String
}
