#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension OutboxActor {
    /// Adds one event to the open batch, sealing before or after it as the policy says.
    func append(_ event: Event) {
        // Each event's bytes are an array of their own: the open batch keeps them (for a rewrite,
        // and the batch sealed from it), so they are written in place, not copied from a scratch.
        if receipts.isOn, case .string(let version)? = event.properties["app_version"] { keeping.seenAppVersion = version }
        let payload: [UInt8]
        if event.origin == .autocaptured, event.name == "app_launched", event.properties["is_first_launch"] == nil {
            // Only the outbox knows its folder's history; the flag is filled in here.
            state.isFirstLaunch = state.isFirstLaunch ?? takeFirstLaunchFlag()
            var flagged = event
            flagged.properties["is_first_launch"] = .bool(state.isFirstLaunch ?? false)
            payload = EventEncoder.encode(flagged)
        } else {
            payload = EventEncoder.encode(event)
        }
        switch state.admission(payloadBytes: payload.count, policy: policy) {
        case .tooLarge:
            problemLog.reportTooLarge(name: event.name, bytes: payload.count)
            counters.update { $0.droppedTooLarge += 1 }
            if let ended = intake.release(1, bytes: event.memoryCost) { problemLog.reportBacklogCleared(ended) }
            return
        case .sealFirst:
            seal()
        case .joins:
            break
        }
        let placed = state.append(
            payload, id: event.id, cost: event.memoryCost,
            isCrash: event.origin == .autocaptured && event.name == "app_crashed", policy: policy
        )
        if placed.startsSealTimer { startSealTimer() }
        if placed.sealsAfter { seal() }
    }

    /// Writes the pending records to the journal and moves the watermark and the counters.
    func commit() {
        ensureAreaIsOurs()
        if !state.open.unwrittenRecords.isEmpty || !state.journalIsComplete { writeJournal() }
        // Before the backlog's release below: a caller woken by it finds the log's room too.
        releaseIntakeLog()
        // The watermark moves only for records a whole journal file in an area holds (the rule
        // is ``OutboxState/commit(durable:)``'s).
        for effect in state.commit(durable: area != nil && state.journalIsComplete) {
            switch effect {
            case .advanceWatermark(let count, let latest):
                advanceWatermark(by: count, latest: latest)
            case .countWritten(let count):
                // Counted where they are: in a journal file, or held in memory.
                updateCounters { $0.pendingOnDisk += count }
                publishRoom()
            case .recount:
                updateCounters()
            case .releaseBacklog(let count, let bytes):
                if let ended = intake.release(count, bytes: bytes) { problemLog.reportBacklogCleared(ended) }
            }
        }
    }

    /// Appends the pending records to the open batch's journal file. When the file is missing
    /// or an earlier write failed, rewrites the whole open batch into a fresh file, so that the
    /// file on disk always holds a prefix-free copy of the open batch or nothing.
    func writeJournal() {
        guard let area else { state.open.forgetUnwritten(); return }
        let path = area.journal(state.open.sequence)
        if !state.journalIsComplete {
            // An earlier write failed: the file may hold records under the watermark.
            rewriteJournal(at: path, in: area)
            state.open.forgetUnwritten()
            return
        }
        var isNewFile = false
        if journalDescriptor < 0 {
            // A new batch's first write: nothing of it is on disk yet, so the file is made here,
            // from an empty spare when the sealer has one (no new inode; `SealerJob.remove`).
            if let spare = sealer.takeSpare() { try? fileSystem.rename(spare, to: path) }
            do {
                journalDescriptor = try openRecreatingFolders(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
            } catch {
                state.journalIsComplete = false
                state.open.forgetUnwritten()
                reportDiskTrouble(error, doing: "open the journal")
                return
            }
            isNewFile = true
        }
        let descriptor = journalDescriptor
        do {
            try state.open.writeUnwritten(wholeFile: isNewFile) { (bytes) throws(FileSystemError) in
                try writeAll(bytes, to: descriptor, path: path)
            }
            crashIfRequested(.afterJournalWrite)
            state.journalIsComplete = true
            diskRecovered()
        } catch {
            // A partial record may now sit at the end of the file; recovery drops it, and the
            // next write starts a fresh file, so nothing is appended after a torn record.
            state.journalIsComplete = false
            reportDiskTrouble(error, doing: "write the journal")
        }
    }

    /// Writes the whole open batch (its header and every record, not just the pending ones) into
    /// a new file in `tmp/` and renames it over the journal. The journal on disk is never
    /// truncated in place: until the rename, it keeps every record it had, those under the
    /// watermark among them, so a failure or a kill in the middle costs nothing that was written
    /// (a leftover temporary file is deleted at the next launch). The new file's descriptor,
    /// now the journal's, takes the later appends.
    private func rewriteJournal(at path: String, in area: AreaLayout) {
        closeJournal()
        let temporary = area.temporaryFolder + "/" + JournalName.journal(state.open.sequence)
        let all = state.open.journalImage()
        let descriptor: Int32
        do {
            descriptor = try openRecreatingFolders(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        } catch {
            state.journalIsComplete = false
            reportDiskTrouble(error, doing: "open the journal")
            return
        }
        do {
            try writeAll(all, to: descriptor, path: temporary)
            try fileSystem.rename(temporary, to: path)
        } catch {
            fileSystem.close(descriptor)
            try? fileSystem.remove(temporary)
            state.journalIsComplete = false
            reportDiskTrouble(error, doing: "write the journal")
            return
        }
        journalDescriptor = descriptor
        crashIfRequested(.afterJournalWrite)
        state.journalIsComplete = true
        diskRecovered()
    }

    /// One or more `write(2)` calls until every byte is written; short writes are completed.
    func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(FileSystemError) {
        // `withUnsafeBytes` rethrows untyped errors; only `FileSystemError` can come out of it.
        do {
            try bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = try fileSystem.write(descriptor, UnsafeRawBufferPointer(rebasing: buffer[offset...]), path: path)
                    if written <= 0 { throw FileSystemError(code: EIO, operation: "write (no progress)", path: path) }
                    offset += written
                }
            }
        } catch let error as FileSystemError {
            throw error
        } catch {
            throw FileSystemError(code: EIO, operation: "write", path: path)
        }
    }

    /// Opens a file for writing in the area; when folders inside the area vanished behind the
    /// SDK's back, makes them again (0700) and retries once, so writing resumes by itself. The
    /// area's own folder is never made again: one made at its path is not locked by this client
    /// (``ensureAreaIsOurs()`` takes another area instead, at the next write).
    func openRecreatingFolders(_ path: String, flags: Int32) throws(FileSystemError) -> Int32 {
        do {
            return try fileSystem.open(path, flags: flags, mode: 0o600)
        } catch where error.code == ENOENT {
            guard let area, areaLock?.stillNames(area) == true else { throw error }
            for folder in [area.batchesFolder, area.setAsideFolder, area.temporaryFolder] {
                try fileSystem.createDirectory(folder, mode: 0o700)
            }
            return try fileSystem.open(path, flags: flags, mode: 0o600)
        }
    }

    func closeJournal() {
        if journalDescriptor >= 0 { fileSystem.close(journalDescriptor) }
        journalDescriptor = -1
    }

    /// Starts the timer that seals a partial batch `maxAge` after its first event.
    /// Its firing reaches the loop as a message (``OutboxInput/timer(_:generation:)``).
    func startSealTimer() {
        sealTimer.start(after: policy.maxAge) { .timer(.seal, generation: $0) }
    }

    /// The seal timer fired for the open batch (a seal since cancels it, so it is this batch's).
    func sealTimerFired() {
        guard !state.open.isEmpty else { return }
        commit()
        seal()
    }
}
