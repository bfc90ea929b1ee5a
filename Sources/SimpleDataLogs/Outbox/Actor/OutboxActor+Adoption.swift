/// Adoption at launch: the files of areas whose process is gone move into this client's area.
extension OutboxActor {
    /// Moves the files of every area whose owner is gone into `own`, under fresh sequence
    /// numbers, one atomic rename each: a crash mid-way leaves each file in exactly one area.
    /// Only areas whose events this client may send are adopted (``AreaOwner/Claim/isUsable``);
    /// another key's or endpoint's are left untouched, journals and sessions included.
    func adoptDeadAreas(
        in layout: OutboxLayout, into own: AreaLayout, found: inout AreaContents,
        leftForOthers: inout [(name: String, claim: AreaOwner.Claim)]
    ) {
        let names = ((try? fileSystem.contents(ofDirectory: layout.areasFolder)) ?? []).sorted()
        for name in names where layout.area(name).folder != own.folder {
            let dead = layout.area(name)
            guard fileSystem.isDirectory(dead.folder),
                  case .success(let lock) = AreaLock.acquire(dead, fileSystem: fileSystem) else { continue }
            defer { lock.release(fileSystem: fileSystem) }
            let claim = claim(of: dead)
            guard claim.isUsable else {
                if !leftForOthers.contains(where: { $0.name == name }) { leftForOthers.append((name, claim)) }
                continue
            }
            // A linked folder in it is skipped (every listing of it fails): what it points to is
            // not ours. The area's real folders are adopted as usual.
            for folder in [dead.batchesFolder, dead.setAsideFolder, dead.temporaryFolder] {
                do { _ = try fileSystem.contents(ofDirectory: folder) } catch where error.isRefusedLink {
                    reportLinkedFolder(error, consequence: "the files of \(name) outside it are adopted, the link is left in place")
                } catch {}
            }
            // Their ledger first: what they settled but had not deleted goes, uncounted.
            absorbLedger(of: dead)
            var theirs = AreaContents()
            normalize(dead, into: &theirs)
            // Their logs are replayed after ours, and deleted then; the folder goes with the last.
            adoptedIntakeLogs += intakeLogs(in: dead.folder)
            leftoverSessions += takeLeftoverSessions(in: dead.folder)
            // Keep their order among themselves, after everything of ours.
            let adoption = RecoveryRules.adoption(
                batchNames: (try? fileSystem.contents(ofDirectory: dead.batchesFolder)) ?? [],
                setAsideNames: (try? fileSystem.contents(ofDirectory: dead.setAsideFolder)) ?? [],
                journals: theirs.journals.map(\.sequence),
                after: max(found.highestSequence, state.open.nextSequence) + 1
            )
            var journalMoves: [(from: String, to: String)] = []
            for journal in adoption.journals {
                journalMoves.append((dead.journal(journal.from), own.journal(journal.to)))
                found.journals.append((journal.to, own.journal(journal.to)))
            }
            found.highestSequence = max(found.highestSequence, adoption.highestSequence)
            var allMoved = move(adoption.batches, from: dead.batchesFolder, to: own.batchesFolder)
            if !move(adoption.setAside, from: dead.setAsideFolder, to: own.setAsideFolder) { allMoved = false }
            for move in journalMoves where (try? fileSystem.rename(move.from, to: move.to)) == nil { allMoved = false }
            let moved = adoption.batches.count + adoption.setAside.count + journalMoves.count
            for folder in [dead.batchesFolder, dead.setAsideFolder, dead.temporaryFolder] {
                if (try? fileSystem.removeDirectory(folder)) == nil, fileSystem.isDirectory(folder) { allMoved = false }
            }
            // The owner file goes last, and only once nothing is left to send: files that stayed
            // behind must not become sendable by any key.
            if allMoved { try? fileSystem.remove(dead.ownerFile) }
            try? fileSystem.remove(dead.lockFile)
            try? fileSystem.removeDirectory(dead.folder)
            if moved > 0 { logger.info("Adopted \(moved) files from the outbox area \(name), whose process is gone.") }
        }
    }

    /// Renames each file of `renames` from the folder `from` into the folder `to`, both opened
    /// once for the loop. - Returns: Whether every file moved.
    func move(_ renames: [RecoveryRules.Adoption.Rename], from: String, to: String) -> Bool {
        guard !renames.isEmpty else { return true }
        guard let source = try? fileSystem.openFolder(at: from) else { return false }
        defer { fileSystem.closeFolder(source) }
        guard let target = try? fileSystem.openFolder(at: to) else { return false }
        defer { fileSystem.closeFolder(target) }
        var allMoved = true
        for rename in renames where (try? fileSystem.rename(rename.from, in: source, to: rename.to, in: target)) == nil { allMoved = false }
        return allMoved
    }
}
