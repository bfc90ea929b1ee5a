#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SimpleDataLogs

/// A read-only look at an outbox folder, and the one repair `sdl outbox requeue` makes, built on
/// the outbox's own layout and record format (DESIGN.md, section 7; Docs/formats.md) so the tool
/// and the SDK can never disagree about what a file holds.
///
/// ``inspect(root:)`` opens every file read-only and never takes an area's lock: it can look at
/// the outbox of a running app without disturbing it. Whether a lock is held is read from
/// `/proc/locks` on Linux (no lock is touched at all); where that file does not exist it is
/// probed with `flock(LOCK_SH | LOCK_NB)` on a separate read-only descriptor, released at once.
/// Why not `fcntl(F_OFD_GETLK)`: the SDK locks with `flock`, and on Linux `flock` and `fcntl`
/// locks are independent, so `F_GETLK` would always say "free".
package enum OutboxInspector {
    /// The outbox folder a client would use, as the SDK resolves it at `configure`:
    /// `SDL_STORAGE_DIR` when set, else the platform's app-data folder for `appID`.
    /// - Parameters:
    ///   - appID: The app's id (on Linux, the executable's name unless the app configured one).
    ///   - environment: The environment to read `SDL_STORAGE_DIR`, `XDG_DATA_HOME` and `HOME` from.
    /// - Returns: The folder, or `nil` when there is no usable one (no `HOME`).
    package static func defaultRoot(appID: String, environment: [String: String]) -> String? {
        StorageLocation.resolve(configured: nil, appID: appID, environment: environment)
    }

    /// Reads everything in the outbox at `root`, changing nothing.
    /// - Parameter root: The outbox folder (the one holding `areas/` and `quarantine/`).
    /// - Returns: What each area, file and lock holds.
    package static func inspect(root: String) -> OutboxReport {
        let fileSystem = PosixFileSystem(confinedTo: root)
        let layout = OutboxLayout(root: root)
        var report = OutboxReport(root: root, exists: fileSystem.isDirectory(root))
        guard report.exists else { return report }
        let locks = SystemLocks.read()
        for name in names(in: layout.areasFolder, fileSystem: fileSystem, linked: &report.linkedFolders) {
            let area = layout.area(name)
            guard fileSystem.isDirectory(area.folder) else {
                if (try? fileSystem.contents(ofDirectory: area.folder)) == nil, isLink(area.folder, fileSystem: fileSystem) {
                    report.linkedFolders.append(area.folder)
                } else {
                    report.strayEntries.append(area.folder)
                }
                continue
            }
            report.areas.append(inspectArea(name: name, area, locks: locks, fileSystem: fileSystem, linked: &report.linkedFolders))
        }
        report.intakeLogs = inspectIntakeLogs(in: root, locks: locks, fileSystem: fileSystem)
        for name in names(in: layout.quarantineFolder, fileSystem: fileSystem, linked: &report.linkedFolders) {
            report.quarantined.append(OutboxFileReport(name: name, path: layout.quarantineFolder + "/" + name, byteCount: fileSize(layout.quarantineFolder + "/" + name)))
        }
        return report
    }

    /// Moves every set-aside batch of every area back into its `batches/` folder, one `rename`
    /// each, so the next client to open the outbox sends them again.
    ///
    /// Unlike ``inspect(root:)`` this takes each affected area's lock (`flock(LOCK_EX |
    /// LOCK_NB)`) for the moves, exactly as a starting client would: a client starting meanwhile
    /// then picks another area and cannot adopt this one half-moved. It refuses, moving nothing,
    /// while any such area is held by another process: that process owns its files.
    /// - Parameter root: The outbox folder.
    /// - Returns: What moved, or why nothing did.
    package static func requeueSetAside(root: String) -> Result<RequeueOutcome, RequeueRefusal> {
        let fileSystem = PosixFileSystem(confinedTo: root)
        let layout = OutboxLayout(root: root)
        guard fileSystem.isDirectory(root) else { return .failure(.noOutbox(root)) }
        var work: [(name: String, area: AreaLayout, files: [String])] = []
        for name in ((try? fileSystem.contents(ofDirectory: layout.areasFolder)) ?? []).sorted() {
            let area = layout.area(name)
            let files = ((try? fileSystem.contents(ofDirectory: area.setAsideFolder)) ?? []).filter { JournalName.batchParts($0) != nil }.sorted()
            if !files.isEmpty { work.append((name, area, files)) }
        }
        var held: [AreaLock] = []
        defer { held.forEach { $0.release(fileSystem: fileSystem) } }
        for item in work {
            switch AreaLock.acquire(item.area, fileSystem: fileSystem) {
            case .success(let lock):
                held.append(lock)
            case .failure(.held):
                return .failure(.areaInUse(area: item.name, ownerPID: lockOwner(item.area.lockFile)))
            case .failure(.failed(let error)):
                return .failure(.cannotLock(area: item.name, reason: "\(error)"))
            }
        }
        var outcome = RequeueOutcome()
        for item in work {
            do {
                try fileSystem.createDirectory(item.area.batchesFolder, mode: 0o700)
            } catch {
                outcome.failures.append("\(item.area.batchesFolder): \(error)")
                continue
            }
            for file in item.files {
                let target = item.area.batchesFolder + "/" + file
                // A batch of this name already queued would be overwritten by rename: leave both.
                guard !fileSystem.isRegularFile(target) else {
                    outcome.failures.append("\(target) already exists; left \(file) in set-aside/")
                    continue
                }
                do {
                    try fileSystem.rename(item.area.setAsideFolder + "/" + file, to: target)
                    outcome.moved.append(item.name + "/batches/" + file)
                } catch {
                    outcome.failures.append("\(file): \(error)")
                }
            }
        }
        return .success(outcome)
    }

    // MARK: Reading

    /// The names in `folder`, sorted; a link there is noted in `linked` (and not followed), and
    /// a folder that cannot be read lists nothing.
    private static func names(in folder: String, fileSystem: PosixFileSystem, linked: inout [String]) -> [String] {
        do {
            return try fileSystem.contents(ofDirectory: folder).sorted()
        } catch where error.isRefusedLink {
            linked.append(folder)
            return []
        } catch {
            return []
        }
    }

    /// Whether `path` is a link (the confined file system refuses to open it as a folder).
    private static func isLink(_ path: String, fileSystem: PosixFileSystem) -> Bool {
        do {
            fileSystem.close(try fileSystem.open(path, flags: O_RDONLY | O_DIRECTORY, mode: 0))
            return false
        } catch {
            return error.isRefusedLink
        }
    }

    private static func inspectArea(
        name: String, _ area: AreaLayout, locks: SystemLocks?, fileSystem: PosixFileSystem, linked: inout [String]
    ) -> OutboxAreaReport {
        var report = OutboxAreaReport(name: name, path: area.folder, lock: inspectLock(area, locks: locks))
        report.owner = inspectOwner(area, fileSystem: fileSystem)
        for file in names(in: area.folder, fileSystem: fileSystem, linked: &linked) where JournalName.journalSequence(file) != nil {
            report.journals.append(inspectFile(name: file, path: area.folder + "/" + file, fileSystem: fileSystem))
        }
        for (folder, isSetAside) in [(area.batchesFolder, false), (area.setAsideFolder, true)] {
            for file in names(in: folder, fileSystem: fileSystem, linked: &linked) {
                var batch = inspectFile(name: file, path: folder + "/" + file, fileSystem: fileSystem)
                if JournalName.batchParts(file) == nil { batch.problem = "not a batch file name; the next client moves it to quarantine/" }
                if isSetAside { report.setAside.append(batch) } else { report.batches.append(batch) }
            }
        }
        report.temporary = names(in: area.temporaryFolder, fileSystem: fileSystem, linked: &linked)
        return report
    }

    /// The area's `owner` file, read as the SDK reads it (``AreaOwner/parse(_:)``).
    private static func inspectOwner(_ area: AreaLayout, fileSystem: PosixFileSystem) -> OutboxOwnerReport {
        do throws(FileSystemError) {
            let bytes = try fileSystem.read(area.ownerFile)
            guard let owner = AreaOwner.parse(bytes) else { return .unreadable("not an owner file the SDK wrote") }
            return .recorded(owner)
        } catch where error.code == ENOENT {
            return .none
        } catch {
            return .unreadable("\(error)")
        }
    }

    private static func inspectFile(name: String, path: String, fileSystem: PosixFileSystem) -> OutboxFileReport {
        var report = OutboxFileReport(name: name, path: path, byteCount: fileSize(path))
        guard fileSystem.isRegularFile(path) else {
            report.problem = "not a regular file; the next client moves it to quarantine/"
            return report
        }
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.read(path)
        } catch {
            report.problem = "unreadable: \(error)"
            return report
        }
        report.byteCount = bytes.count
        bytes.withUnsafeBytes { raw in
            let scan = JournalRecord.scan(raw)
            report.damage = scan.damage.map { OutboxDamage(offset: $0.offset, length: $0.length) }
            for range in scan.records {
                let payload = UnsafeRawBufferPointer(rebasing: raw[range])
                // A batch's header is no event, in a journal too: a process killed while its
                // journal was being sealed in place leaves the header at the journal's start.
                if payload.starts(with: batchHeaderPrefix) { continue }
                report.events += 1
                if let timestamp = topLevelTimestamp(payload) {
                    report.oldestTimestamp = min(report.oldestTimestamp ?? timestamp, timestamp)
                    report.newestTimestamp = max(report.newestTimestamp ?? timestamp, timestamp)
                }
            }
        }
        return report
    }

    private static let batchHeaderPrefix = Array(#"{"sdl_batch":"#.utf8)
    private static let timestampKey = Array(#","ts":"#.utf8)

    /// The event's `ts`, read from the bytes without parsing the whole object. The first
    /// `,"ts":` is the top-level field: a quote inside a JSON string is always escaped, so the
    /// pattern cannot start inside the name or id written before it (EventEncoder's order).
    private static func topLevelTimestamp(_ payload: UnsafeRawBufferPointer) -> Int64? {
        guard payload.count > timestampKey.count else { return nil }
        var index = 0
        while index + timestampKey.count <= payload.count {
            if payload[index] == timestampKey[0], payload[(index + 1)...].starts(with: timestampKey.dropFirst()) {
                var position = index + timestampKey.count
                let negative = position < payload.count && payload[position] == UInt8(ascii: "-")
                if negative { position += 1 }
                var value: Int64 = 0
                var digits = 0
                while position < payload.count, payload[position] >= 0x30, payload[position] <= 0x39, digits < 18 {
                    value = value * 10 + Int64(payload[position] - 0x30)
                    position += 1
                    digits += 1
                }
                return digits == 0 ? nil : (negative ? -value : value)
            }
            index += 1
        }
        return nil
    }

    private static func fileSize(_ path: String) -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return Int(info.st_size)
    }

    // MARK: Locks

    /// The area's lock: held when its folder or its `lock` file is (``AreaLock``; a client of an
    /// earlier version locks only the file); the owner's pid from the file.
    private static func inspectLock(_ area: AreaLayout, locks: SystemLocks?) -> OutboxLockReport {
        let path = area.lockFile
        var report = OutboxLockReport(exists: PosixFileSystem().isRegularFile(path))
        report.ownerPID = report.exists ? lockOwner(path) : nil
        if let pid = report.ownerPID {
            // kill(pid, 0) sends nothing; EPERM means the process exists but is someone else's.
            report.ownerAlive = kill(pid, 0) == 0 || errno == EPERM
        }
        report.method = locks == nil ? "flock probe" : "/proc/locks"
        let folderState = probeLock(area.folder, flags: O_RDONLY | O_DIRECTORY, locks: locks)
        if case .held = folderState {
            report.state = folderState
        } else if report.exists {
            let fileState = probeLock(path, flags: O_RDONLY, locks: locks)
            if case .held = fileState { report.state = fileState } else { report.state = folderState == .free ? fileState : folderState }
        } else {
            report.state = folderState
        }
        return report
    }

    /// The intake logs in the root, oldest first: each read with `read(2)` (never mapped) and
    /// decoded with the SDK's own reader, regular files only (a link or a FIFO under a log's name
    /// is neither read nor opened).
    private static func inspectIntakeLogs(in root: String, locks: SystemLocks?, fileSystem: PosixFileSystem) -> [OutboxIntakeLogReport] {
        let names = ((try? fileSystem.contents(ofDirectory: root)) ?? []).filter { IntakeLogFiles.parts(ofName: $0) != nil }.sorted()
        return names.compactMap { name -> OutboxIntakeLogReport? in
            let path = root + "/" + name
            guard fileSystem.isRegularFile(path) else { return nil }
            var log = OutboxIntakeLogReport(name: name, byteCount: fileSize(path), tag: IntakeLogFiles.parts(ofName: name)?.tag)
            log.lock = probeLock(path, flags: O_RDONLY | O_NONBLOCK, locks: locks)
            guard let bytes = try? fileSystem.read(path) else {
                log.problem = "cannot be read"
                return log
            }
            switch IntakeLogFormat.decode(bytes) {
            case .success(let contents):
                log.events = contents.unreleased.filter { $0.kind == IntakeRecordCodec.Kind.event.rawValue }.count
            case .failure(let reason):
                // A run killed while making its log leaves zeros: nothing was logged in it.
                if !bytes.prefix(IntakeLogFormat.headerSize).allSatisfy({ $0 == 0 }) { log.problem = "not a log this version reads (\(reason))" }
            }
            return log
        }
    }

    /// Whether anyone holds an `flock` on `path`.
    private static func probeLock(_ path: String, flags: Int32, locks: SystemLocks?) -> OutboxLockReport.State {
        let descriptor = open(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { return .unknown("\(path) cannot be opened (errno \(errno))") }
        defer { close(descriptor) }
        if let locks {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return .unknown("fstat failed (errno \(errno))") }
            if let holder = locks.flockHolder(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) { return .held(byPID: holder) }
            return .free
        }
        // No lock table to read: probe with a shared lock, which fails exactly when a client
        // holds its exclusive one, and give it back at once.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(descriptor, LOCK_UN)
            return .free
        }
        return errno == EWOULDBLOCK ? .held(byPID: nil) : .unknown("flock failed (errno \(errno))")
    }

    /// The pid the owner wrote into the lock file (`pid N`).
    private static func lockOwner(_ path: String) -> Int32? {
        guard let bytes = try? PosixFileSystem().read(path) else { return nil }
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard text.hasPrefix("pid ") else { return nil }
        return Int32(text.dropFirst(4).prefix(while: { $0.isNumber }))
    }
}

/// The `flock` locks the kernel lists in `/proc/locks` (Linux only).
private struct SystemLocks {
    /// (major, minor, inode) → the pid that took the lock.
    var holders: [Key: Int32] = [:]

    struct Key: Hashable {
        var major: UInt64
        var minor: UInt64
        var inode: UInt64
    }

    /// The table, or `nil` where the system has none (macOS).
    static func read() -> SystemLocks? {
        #if os(Linux)
        guard let bytes = try? PosixFileSystem().read("/proc/locks") else { return nil }
        var locks = SystemLocks()
        // "1: FLOCK  ADVISORY  WRITE 26060 fe:00:16229203 0 EOF"; blocked waiters start with "->".
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[2] == "ADVISORY", let pid = Int32(fields[4]) else { continue }
            let parts = fields[5].split(separator: ":")
            guard parts.count == 3, let major = UInt64(parts[0], radix: 16), let minor = UInt64(parts[1], radix: 16),
                  let inode = UInt64(parts[2]) else { continue }
            locks.holders[Key(major: major, minor: minor, inode: inode)] = pid
        }
        return locks
        #else
        return nil
        #endif
    }

    /// The pid holding a `flock` on the file with this `st_dev` and `st_ino`, if any.
    func flockHolder(device: UInt64, inode: UInt64) -> Int32? {
        // glibc's gnu_dev_major / gnu_dev_minor.
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        return holders[Key(major: major, minor: minor, inode: inode)]
    }
}
