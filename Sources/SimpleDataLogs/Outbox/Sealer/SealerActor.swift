#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes full journals durable and renames them into `batches/`, and deletes the files the
/// outbox is done with, on a thread of its own (`sdl.sealer`), so that the journal thread only
/// ever appends: while a flush waits for the disk, the next batch is already being written.
///
/// It takes every job waiting at once and treats the seals among them as one group
/// (DESIGN.md, "Sealing"):
/// 1. `sync_file_range` starts the writeback of every journal of the group;
/// 2. `fdatasync` each one (the first wait covers most of the others' pages);
/// 3. `fsync` the area folder once, for the names of journals made since the last group;
/// 4. on Apple platforms, `F_FULLFSYNC` once, for the drive's cache;
/// 5. rename each durable journal into `batches/`, oldest first, and close it.
/// Every flush names one of the outbox's own files: the host's other files (a database beside
/// the server) are never flushed on the SDK's behalf. A kill at any step leaves each journal
/// either where it was (recovery seals it at the next launch) or renamed whole.
actor SealerActor {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let fileSystem: any FileSystem
    private let crashPoint: SealCrashPoint?
    /// Names the spares made so far (`tmp/spare-<n>`).
    private var sparesMade = 0

    init(fileSystem: any FileSystem, crashPoint: SealCrashPoint?, executor: ThreadExecutor) {
        self.fileSystem = fileSystem
        self.crashPoint = crashPoint
        self.executor = executor
    }

    /// Does the jobs handed to `channel` until its queue finishes.
    func run(_ channel: SealerChannel) async {
        // Each step takes every job waiting: the seals among them are one group.
        for await jobs in channel.jobs {
            channel.finished(jobs.count, outcomes: perform(jobs, for: channel))
        }
    }

    /// One group: the seals first (they gate delivery), then the deletes.
    private func perform(_ jobs: [SealerJob], for channel: SealerChannel) -> [SealOutcome] {
        var seals: [JournalSeal] = []
        var removals: [(path: String, spareFolder: String?)] = []
        for job in jobs {
            switch job {
            case .seal(let seal): seals.append(seal)
            case .remove(let path, let spareFolder): removals.append((path, spareFolder))
            case .discard, .discardBatches: break // freed with `jobs`, when this group is done
            }
        }
        // The next journals first, ready before the journal thread needs them (it renames one
        // into place, no inode to find): two per seal of this group, while the journal thread
        // goes on writing; the seals' flushes wait that long (tens of microseconds each).
        if let folder = seals.last?.spareFolder {
            for _ in 0..<min(channel.sparesWanted, 2 * seals.count) {
                guard let spare = makeSpare(in: folder) else { break }
                channel.addSpare(spare)
            }
        }
        let outcomes = seal(seals)
        for removal in removals {
            if let folder = removal.spareFolder, channel.wantsSpare, let spare = recycle(removal.path, into: folder) {
                channel.addSpare(spare)
            } else {
                try? fileSystem.remove(removal.path)
            }
        }
        return outcomes
    }

    /// Makes a new, empty spare journal in `folder` (the area's `tmp/`, deleted at launch like
    /// every temporary file).
    private func makeSpare(in folder: String) -> String? {
        sparesMade += 1
        let spare = folder + "/spare-\(sparesMade)"
        guard let descriptor = try? fileSystem.open(spare, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) else { return nil }
        fileSystem.close(descriptor)
        return spare
    }

    /// Empties a retired file, then moves it into `folder` as a spare journal: emptied first, so
    /// a spare never holds events (a kill in between leaves an empty batch file, which recovery
    /// deletes; a spare left in `tmp/` is deleted at launch, like every temporary file).
    private func recycle(_ path: String, into folder: String) -> String? {
        guard let descriptor = try? fileSystem.open(path, flags: O_WRONLY, mode: 0) else { return nil }
        let emptied = (try? fileSystem.truncate(descriptor, path: path)) != nil
        fileSystem.close(descriptor)
        guard emptied else { return nil }
        sparesMade += 1
        let spare = folder + "/spare-\(sparesMade)"
        guard (try? fileSystem.rename(path, to: spare)) != nil else { return nil }
        return spare
    }

    private func seal(_ seals: [JournalSeal]) -> [SealOutcome] {
        guard !seals.isEmpty else { return [] }
        for seal in seals { fileSystem.startWriteback(seal.descriptor, path: seal.journalPath) }
        var failures: [Int: FileSystemError] = [:]
        for seal in seals {
            do {
                try fileSystem.syncData(seal.descriptor, path: seal.journalPath)
            } catch {
                failures[seal.sequence] = error
            }
        }
        let synced = seals.filter { failures[$0.sequence] == nil }
        if let last = synced.last {
            // Best effort, as for every folder sync: a failure here weakens the power-loss
            // promise for these names only; the data is on the disk either way.
            syncFolder(last.folder)
            do {
                try fileSystem.flushDriveCache(last.descriptor, path: last.journalPath)
            } catch {
                for seal in synced { failures[seal.sequence] = error }
            }
        }
        crashIfRequested(.afterJournalSync)
        var outcomes: [SealOutcome] = []
        outcomes.reserveCapacity(seals.count)
        for seal in seals {
            fileSystem.close(seal.descriptor)
            var failure = failures[seal.sequence]
            if failure == nil {
                do {
                    try fileSystem.rename(seal.journalPath, to: seal.batchPath)
                    crashIfRequested(.afterRename)
                } catch {
                    failure = error
                }
            }
            outcomes.append(SealOutcome(sequence: seal.sequence, failure: failure))
        }
        return outcomes
    }

    private func syncFolder(_ path: String) {
        guard let descriptor = try? fileSystem.open(path, flags: O_RDONLY | O_DIRECTORY, mode: 0) else { return }
        try? fileSystem.sync(descriptor, path: path)
        fileSystem.close(descriptor)
    }

    /// Kills the process at `point` when a crash test asked for it.
    private func crashIfRequested(_ point: SealCrashPoint) {
        if crashPoint == point { kill(getpid(), SIGKILL) }
    }
}
