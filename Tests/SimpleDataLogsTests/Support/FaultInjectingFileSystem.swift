import Foundation
@testable import SimpleDataLogs

/// The real file system with scripted failures: `ENOSPC`, `EIO`, `EROFS`, `EACCES` and short
/// writes, injected through the outbox's seam (tests run as root, so permission bits prove nothing).
final class FaultInjectingFileSystem: FileSystem {
    private struct Faults: Sendable {
        var writeError: Int32?
        var openError: Int32?
        var syncError: Int32?
        var renameError: Int32?
        var shortWrites = false
        var readFailures: [(fragment: String, code: Int32)] = []
        var renameFailures: [(fragment: String, code: Int32)] = []
        var openFailures: [(fragment: String, code: Int32)] = []
        var directoryFailures: [(fragment: String, code: Int32)] = []
        /// Whole-file reads to hold after their `open(2)` (``holdRead(ofPathContaining:until:)``).
        var readHolds: [(fragment: String, gate: ThreadGate)] = []
        /// What each held read returned, in order.
        var heldReadResults: [[UInt8]] = []
        /// Renames to hold before they happen (``holdRename(ofPathContaining:skipping:until:)``).
        var renameHolds: [(fragment: String, skip: Int, gate: ThreadGate)] = []
        /// Renames to hold when a condition on the rename and the record so far holds
        /// (``holdRename(where:until:)``).
        var conditionalRenameHolds: [(condition: @Sendable (_ from: String, _ thread: String?, _ record: [Flush]) -> Bool, gate: ThreadGate)] = []
        /// Opens to hold when a condition on the path and the record so far holds
        /// (``holdOpen(where:until:)``).
        var conditionalOpenHolds: [(condition: @Sendable (_ path: String, _ thread: String?, _ record: [Flush]) -> Bool, gate: ThreadGate)] = []
        var writeAttempts = 0
        var flushes: [Flush] = []
        /// Threads waiting for the record to satisfy a condition (``blockUntil(timeout:_:)``).
        var waiters: [(condition: @Sendable ([Flush]) -> Bool, semaphore: DispatchSemaphore)] = []

        /// Records a call; returns the waiters it satisfied, to be signalled after the lock.
        mutating func record(_ flush: Flush) -> [DispatchSemaphore] {
            flushes.append(flush)
            guard !waiters.isEmpty else { return [] }
            let met = waiters.filter { $0.condition(flushes) }.map(\.semaphore)
            waiters.removeAll { waiter in met.contains { $0 === waiter.semaphore } }
            return met
        }
    }

    /// One flush or delete the outbox made: which file, how, and on which thread.
    struct Flush: Sendable, Equatable {
        enum Kind: Sendable, Equatable { case fsync, startWriteback, syncData, driveCache, remove, read, rename, truncate, heldReadReturned }
        var kind: Kind
        var path: String
        /// A rename's new name.
        var destination: String? = nil
        /// The calling thread's name (`sdl.sealer`, `sdl.outbox`, …).
        var thread: String? = Thread.current.name
    }

    private let real: PosixFileSystem
    private let faults: Locked<Faults>
    /// While closed, `syncData` blocks its caller (the sealer) until it opens: the journal
    /// thread's work can be watched while a flush "takes" as long as a test likes.
    let syncGate: ThreadGate

    init() {
        real = PosixFileSystem()
        faults = Locked(Faults())
        syncGate = ThreadGate(isOpen: true)
    }

    /// A view of `original` over a confined real file system: the same faults, record and gate.
    private init(confining original: FaultInjectingFileSystem, to root: String) {
        real = PosixFileSystem(confinedTo: root)
        faults = original.faults
        syncGate = original.syncGate
    }

    func confined(to root: String) -> any FileSystem { FaultInjectingFileSystem(confining: self, to: root) }

    func failWrites(with code: Int32?) { faults.withLock { $0.writeError = code } }
    func failOpens(with code: Int32?) { faults.withLock { $0.openError = code } }
    func failSyncs(with code: Int32?) { faults.withLock { $0.syncError = code } }
    func failRenames(with code: Int32?) { faults.withLock { $0.renameError = code } }
    func makeWritesShort(_ short: Bool) { faults.withLock { $0.shortWrites = short } }
    func failReads(ofPathsContaining fragment: String, with code: Int32) { faults.withLock { $0.readFailures.append((fragment, code)) } }
    func failRenames(ofPathsContaining fragment: String, with code: Int32) { faults.withLock { $0.renameFailures.append((fragment, code)) } }
    /// Fails every open for writing of a path containing `fragment`.
    func failOpens(ofPathsContaining fragment: String, with code: Int32) { faults.withLock { $0.openFailures.append((fragment, code)) } }
    func failCreatingDirectories(containing fragment: String, with code: Int32) { faults.withLock { $0.directoryFailures.append((fragment, code)) } }
    func clearAll() { faults.withLock { $0 = Faults(writeAttempts: $0.writeAttempts, flushes: $0.flushes, waiters: $0.waiters) } }
    /// Holds the next whole-file read of a path containing `fragment` (made by a thread other
    /// than the journal's, `sdl.outbox`) between its `open(2)` and its `read(2)`s until `gate`
    /// opens: the reader then reads whatever the inode holds by then (a truncated, recycled or
    /// rewritten file), as a read that lost a race with the sealer would. The `.read` record is
    /// made once the file is open, so a test can wait for it.
    func holdRead(ofPathContaining fragment: String, until gate: ThreadGate) { faults.withLock { $0.readHolds.append((fragment, gate)) } }
    /// Holds a later rename of a path containing `fragment` (the one after `skip` such renames)
    /// before it happens, on whatever thread makes it, until `gate` opens: the outbox can be
    /// stopped in the middle of an operation, after the changes it made but before it posts
    /// them. The `.rename` record is made when the hold starts, so a test can wait for it.
    func holdRename(ofPathContaining fragment: String, skipping skip: Int, until gate: ThreadGate) {
        faults.withLock { $0.renameHolds.append((fragment, skip, gate)) }
    }
    /// Holds the first `open` for which `condition` (its path, the calling thread's name, the
    /// record of calls before it) is true, before it happens, until `gate` opens; a test learns
    /// that it is held from the gate (`blockUntilSomeoneIsHeld`). Opens are not recorded.
    func holdOpen(
        where condition: @escaping @Sendable (_ path: String, _ thread: String?, _ record: [Flush]) -> Bool, until gate: ThreadGate
    ) {
        faults.withLock { $0.conditionalOpenHolds.append((condition, gate)) }
    }
    /// Holds the first rename for which `condition` (its source, the calling thread's name, the
    /// record of calls before it) is true, as ``holdRename(ofPathContaining:skipping:until:)``
    /// does: for a hold that must come after some other call, whoever makes it first.
    func holdRename(
        where condition: @escaping @Sendable (_ from: String, _ thread: String?, _ record: [Flush]) -> Bool, until gate: ThreadGate
    ) {
        faults.withLock { $0.conditionalRenameHolds.append((condition, gate)) }
    }
    /// The bytes each held read returned, in order.
    var heldReadResults: [[UInt8]] { faults.withLock { $0.heldReadResults } }
    var writeAttempts: Int { faults.withLock { $0.writeAttempts } }
    /// Every flush call, delete, rename, truncate and whole-file read so far, in order, with the
    /// path it named.
    var flushes: [Flush] { faults.withLock { $0.flushes } }

    /// Blocks the calling thread (never one of the pool's: use `onOwnThread`) until the record
    /// of calls satisfies `condition`, or `timeout` passes. Returns whether it did.
    func blockUntil(timeout: DispatchTime, _ condition: @escaping @Sendable ([Flush]) -> Bool) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let already: Bool = faults.withLock { faults in
            if condition(faults.flushes) { return true }
            faults.waiters.append((condition, semaphore))
            return false
        }
        return already || semaphore.wait(timeout: timeout) == .success
    }

    func open(_ path: String, flags: Int32, mode: FileMode) throws(FileSystemError) -> Int32 {
        let thread = Thread.current.name
        let hold: ThreadGate? = faults.withLock { faults in
            guard let index = faults.conditionalOpenHolds.firstIndex(where: { $0.condition(path, thread, faults.flushes) }) else { return nil }
            return faults.conditionalOpenHolds.remove(at: index).gate
        }
        hold?.blockWhileClosed()
        // Folders (for fsync) and the lock stay reachable: the faults model a full or failing data disk.
        if let code = faults.withLock({ $0.openError }), flags & O_DIRECTORY == 0, !path.hasSuffix("/lock"), flags & (O_WRONLY | O_RDWR) != 0 {
            throw FileSystemError(code: code, operation: "open", path: path)
        }
        if flags & (O_WRONLY | O_RDWR) != 0, let failure = faults.withLock({ faults in faults.openFailures.first { path.contains($0.fragment) } }) {
            throw FileSystemError(code: failure.code, operation: "open", path: path)
        }
        return try real.open(path, flags: flags, mode: mode)
    }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        let (error, short) = faults.withLock { faults in
            faults.writeAttempts += 1
            return (faults.writeError, faults.shortWrites)
        }
        if let error, path != "lock" { throw FileSystemError(code: error, operation: "write", path: path) }
        if short && bytes.count > 1 {
            return try real.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count / 2)]), path: path)
        }
        return try real.write(descriptor, bytes, path: path)
    }

    func sync(_ descriptor: Int32, path: String) throws(FileSystemError) {
        let (code, met) = faults.withLock { faults in (faults.syncError, faults.record(Flush(kind: .fsync, path: path))) }
        met.forEach { $0.signal() }
        if let code { throw FileSystemError(code: code, operation: "fsync", path: path) }
        try real.sync(descriptor, path: path)
    }

    func startWriteback(_ descriptor: Int32, path: String) {
        faults.withLock { $0.record(Flush(kind: .startWriteback, path: path)) }.forEach { $0.signal() }
        real.startWriteback(descriptor, path: path)
    }

    func syncData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        syncGate.blockWhileClosed()
        let (code, met) = faults.withLock { faults in (faults.syncError, faults.record(Flush(kind: .syncData, path: path))) }
        met.forEach { $0.signal() }
        if let code { throw FileSystemError(code: code, operation: "fdatasync", path: path) }
        try real.syncData(descriptor, path: path)
    }

    func flushDriveCache(_ descriptor: Int32, path: String) throws(FileSystemError) {
        faults.withLock { $0.record(Flush(kind: .driveCache, path: path)) }.forEach { $0.signal() }
        try real.flushDriveCache(descriptor, path: path)
    }

    func close(_ descriptor: Int32) { real.close(descriptor) }

    func rename(_ from: String, to: String) throws(FileSystemError) {
        let thread = Thread.current.name
        let hold: ThreadGate? = faults.withLock { faults in
            if let index = faults.conditionalRenameHolds.firstIndex(where: { $0.condition(from, thread, faults.flushes) }) {
                return faults.conditionalRenameHolds.remove(at: index).gate
            }
            guard let index = faults.renameHolds.firstIndex(where: { from.contains($0.fragment) }) else { return nil }
            if faults.renameHolds[index].skip > 0 {
                faults.renameHolds[index].skip -= 1
                return nil
            }
            return faults.renameHolds.remove(at: index).gate
        }
        let (code, met) = faults.withLock { faults in
            (faults.renameError ?? faults.renameFailures.first { from.contains($0.fragment) }?.code, faults.record(Flush(kind: .rename, path: from, destination: to)))
        }
        met.forEach { $0.signal() }
        hold?.blockWhileClosed()
        if let code { throw FileSystemError(code: code, operation: "rename", path: from) }
        try real.rename(from, to: to)
    }

    /// Fails as a rename of the same paths would (``failRenames(ofPathsContaining:with:)``): both
    /// put a written file into place.
    func linkNew(_ from: String, to: String) throws(FileSystemError) {
        let code = faults.withLock { $0.renameError ?? $0.renameFailures.first { from.contains($0.fragment) }?.code }
        if let code { throw FileSystemError(code: code, operation: "link", path: to) }
        try real.linkNew(from, to: to)
    }

    func remove(_ path: String) throws(FileSystemError) {
        faults.withLock { $0.record(Flush(kind: .remove, path: path)) }.forEach { $0.signal() }
        try real.remove(path)
    }
    func createDirectory(_ path: String, mode: FileMode) throws(FileSystemError) {
        if let failure = faults.withLock({ $0.directoryFailures.first { path.contains($0.fragment) } }) {
            throw FileSystemError(code: failure.code, operation: "mkdir", path: path)
        }
        try real.createDirectory(path, mode: mode)
    }
    func contents(ofDirectory path: String) throws(FileSystemError) -> [String] { try real.contents(ofDirectory: path) }
    func removeDirectory(_ path: String) throws(FileSystemError) { try real.removeDirectory(path) }
    func setPermissions(_ path: String, mode: FileMode) throws(FileSystemError) { try real.setPermissions(path, mode: mode) }
    func truncate(_ descriptor: Int32, path: String) throws(FileSystemError) {
        faults.withLock { $0.record(Flush(kind: .truncate, path: path)) }.forEach { $0.signal() }
        try real.truncate(descriptor, path: path)
    }

    func read(_ path: String) throws(FileSystemError) -> [UInt8] {
        let hold: ThreadGate? = faults.withLock { faults in
            guard Thread.current.name != "sdl.outbox", let index = faults.readHolds.firstIndex(where: { path.contains($0.fragment) }) else { return nil }
            return faults.readHolds.remove(at: index).gate
        }
        if let hold { return try heldRead(path, until: hold) }
        let (failure, met) = faults.withLock { faults in
            (faults.readFailures.first { path.contains($0.fragment) }, faults.record(Flush(kind: .read, path: path)))
        }
        met.forEach { $0.signal() }
        if let failure {
            throw FileSystemError(code: failure.code, operation: "read", path: path)
        }
        return try real.read(path)
    }

    /// A whole-file read held between its `open(2)` and its `read(2)`s (``holdRead(ofPathContaining:until:)``).
    private func heldRead(_ path: String, until gate: ThreadGate) throws(FileSystemError) -> [UInt8] {
        let descriptor = try real.open(path, flags: O_RDONLY, mode: 0)
        defer { real.close(descriptor) }
        faults.withLock { $0.record(Flush(kind: .read, path: path)) }.forEach { $0.signal() }
        gate.blockWhileClosed()
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { result.append(contentsOf: chunk[0..<count]); continue }
            if count == 0 {
                faults.withLock { faults in
                    faults.heldReadResults.append(result)
                    return faults.record(Flush(kind: .heldReadReturned, path: path))
                }.forEach { $0.signal() }
                return result
            }
            if errno != EINTR { throw FileSystemError(code: errno, operation: "read", path: path) }
        }
    }

    func tryLock(_ descriptor: Int32) -> Bool { SpawnGate.withNoSpawnInFlight { real.tryLock(descriptor) } }
    func isRegularFile(_ path: String) -> Bool { real.isRegularFile(path) }
    func isDirectory(_ path: String) -> Bool { real.isDirectory(path) }
}

extension FaultInjectingFileSystem {
    /// Fault-injection seams whose file system is this one.
    var injection: FaultInjection {
        var injection = FaultInjection()
        injection.fileSystem = self
        return injection
    }
}
