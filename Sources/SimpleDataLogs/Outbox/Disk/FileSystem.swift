#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's permission bits, as `open(2)` and `mkdir(2)` take them. Its own name, so that the
/// seam's signatures do not depend on how each C library spells `mode_t`.
#if canImport(Darwin)
package typealias FileMode = UInt16
#else
package typealias FileMode = UInt32
#endif

/// An error from the file system: the `errno` value of the failed call.
package struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: Int32
    package var operation: String
    package var path: String

    package var description: String { "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))" }

    /// The refusal of a link inside the storage folder, where only real folders and files count.
    package static func linkRefused(_ path: String) -> FileSystemError {
        FileSystemError(code: ELOOP, operation: "refused to follow the link", path: path)
    }

    /// Whether the call failed because a link stood where the SDK keeps a folder or a file
    /// (``linkRefused(_:)``, or `O_NOFOLLOW`'s `ELOOP`).
    package var isRefusedLink: Bool { code == ELOOP }
}

/// The outbox's only door to the disk: a seam through which tests inject `ENOSPC`, `EIO`,
/// `EROFS`, `EACCES` and short writes (tests run as root, so permission bits prove nothing).
///
/// A file system ``confined(to:)`` the storage folder follows no link below it: every folder on
/// the way to a file is opened from the root with `O_NOFOLLOW | O_DIRECTORY`, and the last step
/// is an `openat`, `unlinkat`, `renameat`, `mkdirat` or `fstatat` relative to the folder so
/// opened. A link planted anywhere inside (`areas`, `areas/a0/tmp`, `quarantine`) fails that
/// call with ``FileSystemError/isRefusedLink``; nothing outside the folder is removed or renamed.
/// Links in the root's own path are followed: that path is the app's choice.
///
/// Every method blocks, so only the outbox's threads call it (the journal's, and the sealer's for
/// flushes, renames and deletes). Every descriptor is opened with `O_CLOEXEC`, so a child process
/// never inherits one. Every flush names one descriptor: nothing here flushes a whole file system.
package protocol FileSystem: Sendable {
    /// The same file system, confined to the storage folder `root` (see the type's comment).
    func confined(to root: String) -> any FileSystem
    /// `open(2)` with `O_CLOEXEC` added; returns the descriptor.
    func open(_ path: String, flags: Int32, mode: FileMode) throws(FileSystemError) -> Int32
    /// One `write(2)`; returns how many bytes were written (possibly fewer than asked).
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int
    /// `fsync(2)` (and, on Apple platforms, the drive's cache): the file's data and metadata.
    func sync(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// Starts writing one file's dirty pages to the disk without waiting
    /// (`sync_file_range(SYNC_FILE_RANGE_WRITE)` on Linux; nothing elsewhere). Best effort: it
    /// only lets the device work on several files at once before ``syncData(_:path:)`` waits.
    func startWriteback(_ descriptor: Int32, path: String)
    /// `fdatasync(2)` on Linux (`fsync(2)` on Apple platforms): one file's data, and the
    /// metadata needed to read it back, are on the disk when it returns.
    func syncData(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// Apple platforms: `F_FULLFSYNC`, the drive's own cache to the medium, once for a group of
    /// files synced before it. Nothing elsewhere (Linux's `fdatasync` already flushes the cache).
    func flushDriveCache(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// `close(2)`; errors are ignored because nothing can be done about them.
    func close(_ descriptor: Int32)
    /// `rename(2)`, atomic within one file system; confined, only within the storage folder.
    func rename(_ from: String, to: String) throws(FileSystemError)
    /// `link(2)`: `to` names the file `from` names, unless `to` exists (then `EEXIST`, and
    /// nothing changes). What two processes racing to create one file use: exactly one wins.
    /// Confined, only within the storage folder; a link at `from` is not followed.
    func linkNew(_ from: String, to: String) throws(FileSystemError)
    /// `unlink(2)`; a file already gone is not an error; confined, only inside the storage folder.
    func remove(_ path: String) throws(FileSystemError)
    /// `mkdir(2)` for each missing component, with `mode`. A folder that exists keeps its mode.
    func createDirectory(_ path: String, mode: FileMode) throws(FileSystemError)
    /// `rmdir(2)`: removes an empty folder; a folder already gone is not an error; confined, only
    /// inside the storage folder.
    func removeDirectory(_ path: String) throws(FileSystemError)
    /// `chmod(2)`.
    func setPermissions(_ path: String, mode: FileMode) throws(FileSystemError)
    /// `ftruncate(2)` to zero bytes.
    func truncate(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// The names in a folder, without `.` and `..`.
    func contents(ofDirectory path: String) throws(FileSystemError) -> [String]
    /// A whole file's bytes.
    func read(_ path: String) throws(FileSystemError) -> [UInt8]
    /// `flock(2)` with `LOCK_EX | LOCK_NB`: whether this descriptor now holds the lock.
    func tryLock(_ descriptor: Int32) -> Bool
    /// Whether `path` is a regular file (not a folder, link or device).
    func isRegularFile(_ path: String) -> Bool
    /// Whether `path` is a folder.
    func isDirectory(_ path: String) -> Bool

    // A folder opened once for a loop over its files (``OpenedFolder``); each has a by-path
    // default, which the real file system replaces with descriptor-relative calls.

    /// Opens the folder `path` (confined: walked from the root, no link followed); the caller
    /// gives it back with ``closeFolder(_:)``.
    func openFolder(at path: String) throws(FileSystemError) -> OpenedFolder
    /// Gives back a folder from ``openFolder(at:)``.
    func closeFolder(_ folder: OpenedFolder)
    /// The names in the folder, without `.` and `..`.
    func names(in folder: OpenedFolder) throws(FileSystemError) -> [String]
    /// A whole regular file's bytes; a link, folder, FIFO or device is refused, never opened
    /// through nor waited on.
    func readRegularFile(_ name: String, in folder: OpenedFolder) throws(FileSystemError) -> [UInt8]
    /// `renameat(2)` of one name in `folder` to one name in `target`.
    func rename(_ name: String, in folder: OpenedFolder, to newName: String, in target: OpenedFolder) throws(FileSystemError)
    /// `unlinkat(2)` of one name in the folder; a file already gone is not an error.
    func remove(_ name: String, in folder: OpenedFolder) throws(FileSystemError)
}

/// The real file system, through POSIX calls.
package struct PosixFileSystem: FileSystem {
    /// The storage folder this file system is confined to, without a trailing `/`; `nil`: paths
    /// are used as given (the CLI's read of `/proc/locks`, tests).
    package let root: String?

    /// A file system that uses every path as given.
    package init() { root = nil }

    /// A file system confined to the storage folder `root`: no link below it is followed, and
    /// nothing outside it is removed or renamed.
    package init(confinedTo root: String) {
        var trimmed = Substring(root)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        self.root = String(trimmed)
    }

    package func confined(to root: String) -> any FileSystem { PosixFileSystem(confinedTo: root) }

    /// `O_NOFOLLOW` on every file (not folder) open: a symlink planted where the outbox keeps a
    /// file (`lock`, a journal) in a shared folder would otherwise make the SDK write, or
    /// truncate, whatever it points to. The open fails with `ELOOP` instead, like any refusal.
    /// Inside the storage folder, folders are opened with `O_NOFOLLOW` too.
    package func open(_ path: String, flags: Int32, mode: FileMode) throws(FileSystemError) -> Int32 {
        if let inside = try confinedComponents(of: path) {
            return try withParent(inside, path: path) { (parent, name) throws(FileSystemError) in
                try Self.openAt(parent, name, flags: flags, mode: mode, path: path)
            }
        }
        let noFollow: Int32 = flags & O_DIRECTORY == 0 ? O_NOFOLLOW : 0
        while true {
            let descriptor = path.withCString { systemOpen($0, flags | O_CLOEXEC | noFollow, mode_t(mode)) }
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw FileSystemError(code: errno, operation: "open", path: path) }
        }
    }

    package func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        while true {
            let written = systemWrite(descriptor, bytes.baseAddress, bytes.count)
            if written >= 0 { return written }
            if errno != EINTR { throw FileSystemError(code: errno, operation: "write", path: path) }
        }
    }

    package func sync(_ descriptor: Int32, path: String) throws(FileSystemError) {
        guard fsync(descriptor) == 0 else { throw FileSystemError(code: errno, operation: "fsync", path: path) }
        #if canImport(Darwin)
        try flushDriveCache(descriptor, path: path)
        #endif
    }

    package func startWriteback(_ descriptor: Int32, path: String) {
        _ = DiskFlush.startWriteback?(descriptor, 0, 0, DiskFlush.writeFlag)
    }

    package func syncData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        #if canImport(Darwin)
        guard fsync(descriptor) == 0 else { throw FileSystemError(code: errno, operation: "fsync", path: path) }
        #else
        guard fdatasync(descriptor) == 0 else { throw FileSystemError(code: errno, operation: "fdatasync", path: path) }
        #endif
    }

    /// On Apple platforms `fsync` hands the data to the drive, which may keep it in its own cache
    /// through a power loss; `F_FULLFSYNC` asks the drive to write that cache to the medium, which
    /// the power-loss promise needs (DESIGN.md, "Durability contract"). One call flushes the whole
    /// cache, so a group of files pays it once. A file system that does not support it (some
    /// network and FAT volumes answer `ENOTSUP`) keeps the `fsync` alone.
    package func flushDriveCache(_ descriptor: Int32, path: String) throws(FileSystemError) {
        #if canImport(Darwin)
        guard fcntl(descriptor, F_FULLFSYNC) == 0 || errno == ENOTSUP || errno == EINVAL else {
            throw FileSystemError(code: errno, operation: "fcntl(F_FULLFSYNC)", path: path)
        }
        #endif
    }

    package func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    package func rename(_ from: String, to: String) throws(FileSystemError) {
        if root != nil {
            let source = try insideOnly(from, operation: "rename")
            let target = try insideOnly(to, operation: "rename")
            try withParent(source, path: from) { (fromFolder, fromName) throws(FileSystemError) in
                try withParent(target, path: to) { (toFolder, toName) throws(FileSystemError) in
                    guard renameat(fromFolder, fromName, toFolder, toName) == 0 else {
                        throw FileSystemError(code: errno, operation: "rename", path: from)
                    }
                }
            }
            return
        }
        guard systemRename(from, to) == 0 else { throw FileSystemError(code: errno, operation: "rename", path: from) }
    }

    package func linkNew(_ from: String, to: String) throws(FileSystemError) {
        if root != nil {
            let source = try insideOnly(from, operation: "link")
            let target = try insideOnly(to, operation: "link")
            try withParent(source, path: from) { (fromFolder, fromName) throws(FileSystemError) in
                try withParent(target, path: to) { (toFolder, toName) throws(FileSystemError) in
                    guard linkat(fromFolder, fromName, toFolder, toName, 0) == 0 else {
                        throw FileSystemError(code: errno, operation: "link", path: to)
                    }
                }
            }
            return
        }
        guard systemLink(from, to) == 0 else { throw FileSystemError(code: errno, operation: "link", path: to) }
    }

    package func remove(_ path: String) throws(FileSystemError) {
        if root != nil {
            try withParent(try insideOnly(path, operation: "unlink"), path: path) { (folder, name) throws(FileSystemError) in
                guard unlinkat(folder, name, 0) == 0 || errno == ENOENT else { throw FileSystemError(code: errno, operation: "unlink", path: path) }
            }
            return
        }
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError(code: errno, operation: "unlink", path: path) }
    }

    package func createDirectory(_ path: String, mode: FileMode) throws(FileSystemError) {
        if let root, let inside = try confinedComponents(of: path) {
            // The root by its path (its own path is the app's choice), then each folder below it
            // made and opened relative to the one above, never through a link.
            try PosixFileSystem().createDirectory(root, mode: mode)
            let folder = try openFolder(inside[...], path: path, creating: mode)
            _ = systemClose(folder)
            return
        }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode_t(mode)) != 0 && errno != EEXIST {
                throw FileSystemError(code: errno, operation: "mkdir", path: prefix)
            }
        }
        guard isDirectory(path) else { throw FileSystemError(code: ENOTDIR, operation: "mkdir", path: path) }
    }

    package func removeDirectory(_ path: String) throws(FileSystemError) {
        if root != nil {
            try withParent(try insideOnly(path, operation: "rmdir"), path: path) { (folder, name) throws(FileSystemError) in
                guard unlinkat(folder, name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
                    throw FileSystemError(code: errno, operation: "rmdir", path: path)
                }
            }
            return
        }
        guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError(code: errno, operation: "rmdir", path: path) }
    }

    package func setPermissions(_ path: String, mode: FileMode) throws(FileSystemError) {
        if try confinedComponents(of: path) != nil {
            // `fchmodat(AT_SYMLINK_NOFOLLOW)` is not supported on Linux: open without following, then `fchmod`.
            let descriptor = try open(path, flags: O_RDONLY, mode: 0)
            defer { _ = systemClose(descriptor) }
            guard fchmod(descriptor, mode_t(mode)) == 0 else { throw FileSystemError(code: errno, operation: "chmod", path: path) }
            return
        }
        guard chmod(path, mode_t(mode)) == 0 else { throw FileSystemError(code: errno, operation: "chmod", path: path) }
    }

    package func truncate(_ descriptor: Int32, path: String) throws(FileSystemError) {
        guard ftruncate(descriptor, 0) == 0 else { throw FileSystemError(code: errno, operation: "ftruncate", path: path) }
    }

    package func contents(ofDirectory path: String) throws(FileSystemError) -> [String] {
        let opened: DirectoryStream?
        if let inside = try confinedComponents(of: path) {
            let descriptor = try withParent(inside, path: path) { (folder, name) throws(FileSystemError) in
                try Self.openAt(folder, name, flags: O_RDONLY | O_DIRECTORY, mode: 0, path: path)
            }
            opened = fdopendir(descriptor)
            if opened == nil { _ = systemClose(descriptor) }
        } else {
            opened = opendir(path)
        }
        guard let directory = opened else { throw FileSystemError(code: errno, operation: "opendir", path: path) }
        defer { closedir(directory) }
        return entryNames(directory)
    }

    package func read(_ path: String) throws(FileSystemError) -> [UInt8] {
        let descriptor = try open(path, flags: O_RDONLY, mode: 0)
        defer { close(descriptor) }
        var result: [UInt8] = []
        // Sized from `fstat` first, so a large file (an intake log) is read without the array
        // growing in steps; a file that grows meanwhile is read to its end all the same.
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_size > 0 { result.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { result.append(contentsOf: chunk[0..<count]); continue }
            if count == 0 { return result }
            if errno != EINTR { throw FileSystemError(code: errno, operation: "read", path: path) }
        }
    }

    package func tryLock(_ descriptor: Int32) -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    package func isRegularFile(_ path: String) -> Bool { fileType(path) == S_IFREG }

    package func isDirectory(_ path: String) -> Bool { fileType(path) == S_IFDIR }

    private func fileType(_ path: String) -> mode_t? {
        var info = stat()
        if let inside = try? confinedComponents(of: path) {
            let found = try? withParent(inside, path: path) { (folder, name) throws(FileSystemError) -> Bool in
                fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            }
            return found == true ? info.st_mode & S_IFMT : nil
        }
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}

/// What `opendir(3)` returns, as each C library spells it.
#if canImport(Darwin)
typealias DirectoryStream = UnsafeMutablePointer<DIR>
#else
typealias DirectoryStream = OpaquePointer
#endif

// The system calls under other names, so that the seam's methods can share theirs.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: FileMode) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, bytes, count) }
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(descriptor, bytes, count) }
func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemLink(_ from: String, _ to: String) -> Int32 { link(from, to) }

/// Every name `directory` lists but `.` and `..`, each read in place from its `readdir` entry
/// up to its NUL. Copying `d_name` out as a value reads all 256 bytes of the field, past the end
/// of a short entry at the end of the buffer `readdir` fills (AddressSanitizer caught it: a
/// heap-buffer-overflow in launch's listing).
func entryNames(_ directory: DirectoryStream) -> [String] {
    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = String(cString: UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self))
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
