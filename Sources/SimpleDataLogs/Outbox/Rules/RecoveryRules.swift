/// The decisions recovery makes at launch, as pure functions of what the folders hold: which
/// journals a crash left sealed-but-not-removed, which to recover, what a dead area's files are
/// renamed to, and how recovered events are cut into requests. ``OutboxActor`` lists the folders,
/// asks here, and does the reads, renames and deletes; `RecoveryRulesTests` checks the answers.
enum RecoveryRules {
    /// What an area's file names say after a crash.
    struct AreaInventory: Sendable, Equatable {
        /// Journals whose batch exists (in `batches/` or `set-aside/`): sealed before the crash
        /// and not yet removed, so the batch holds their events; delete them.
        var retiredJournals: [Int] = []
        /// Journals with no batch: recover their records.
        var journalsToRecover: [Int] = []
        /// The highest sequence any file uses.
        var highestSequence = 0
    }

    /// Classifies an area's files by name.
    /// - Parameters:
    ///   - folderNames: The names in the area's folder (journals among them).
    ///   - batchNames: The names in its `batches/`.
    ///   - setAsideNames: The names in its `set-aside/`.
    static func inventory(folderNames: [String], batchNames: [String], setAsideNames: [String]) -> AreaInventory {
        let sealed = Set((batchNames + setAsideNames).compactMap { JournalName.batchParts($0)?.sequence })
        var inventory = AreaInventory(highestSequence: sealed.max() ?? 0)
        for sequence in folderNames.compactMap(JournalName.journalSequence).sorted() {
            inventory.highestSequence = max(inventory.highestSequence, sequence)
            if sealed.contains(sequence) {
                inventory.retiredJournals.append(sequence)
            } else {
                inventory.journalsToRecover.append(sequence)
            }
        }
        return inventory
    }

    /// A dead area's files under their new names in the adopting area.
    struct Adoption: Sendable, Equatable {
        /// Batch files of `batches/` (or of `set-aside/`), old name → new name.
        var batches: [Rename] = []
        var setAside: [Rename] = []
        /// Journals, old sequence → new sequence.
        var journals: [Renumbering] = []
        /// The highest sequence the adopted files now use (0 when none).
        var highestSequence = 0

        /// One file's old and new name.
        struct Rename: Sendable, Equatable {
            var from: String
            var to: String
        }

        /// One journal's old and new sequence.
        struct Renumbering: Sendable, Equatable {
            var from: Int
            var to: Int
        }
    }

    /// Renumbers a dead area's files after `base`, keeping their order among themselves, so they
    /// sort after everything of the adopting area's. Names that are not batch files stay where
    /// they are.
    static func adoption(batchNames: [String], setAsideNames: [String], journals: [Int], after base: Int) -> Adoption {
        var adoption = Adoption()
        func renamed(_ names: [String]) -> [Adoption.Rename] {
            names.sorted().compactMap { name in
                guard let parts = JournalName.batchParts(name) else { return nil }
                adoption.highestSequence = max(adoption.highestSequence, base + parts.sequence)
                return Adoption.Rename(from: name, to: JournalName.batch(sequence: base + parts.sequence, path: parts.path, id: parts.id))
            }
        }
        adoption.batches = renamed(batchNames)
        adoption.setAside = renamed(setAsideNames)
        adoption.journals = journals.map { Adoption.Renumbering(from: $0, to: base + $0) }
        adoption.highestSequence = max(adoption.highestSequence, journals.map { base + $0 }.max() ?? 0)
        return adoption
    }

    /// Cuts recovered payloads into runs that each fit one request (the seal policy's body limit
    /// and the ingest's 1,000 events). A journal holds at most one batch, but a damaged one may
    /// hold anything.
    static func chunked(_ payloads: [[UInt8]], policy: SealPolicy) -> [[[UInt8]]] {
        var chunks: [[[UInt8]]] = [[]]
        var bytes = 0
        for payload in payloads {
            if let last = chunks.last, !last.isEmpty,
               policy.mustSealBefore(adding: payload.count, openCount: last.count, openPayloadBytes: bytes) || last.count >= EventLimits.maxEventsPerRequest {
                chunks.append([])
                bytes = 0
            }
            chunks[chunks.count - 1].append(payload)
            bytes += payload.count
        }
        return chunks
    }
}
