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
}

/// The outbox's only door to the disk: a seam through which tests inject `ENOSPC`, `EIO`,
/// `EROFS`, `EACCES` and short writes (tests run as root, so permission bits prove nothing).
///
/// Every method blocks, so only the outbox's threads call it (the journal's, and the sealer's for
/// flushes, renames and deletes). Every descriptor is opened with `O_CLOEXEC`, so a child process
/// never inherits one. Every flush names one descriptor: nothing here flushes a whole file system.
package protocol FileSystem: Sendable {
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
    /// `rename(2)`, atomic within one file system.
    func rename(_ from: String, to: String) throws(FileSystemError)
    /// `unlink(2)`; a file already gone is not an error.
    func remove(_ path: String) throws(FileSystemError)
    /// `mkdir(2)` for each missing component, with `mode`.
    func createDirectory(_ path: String, mode: FileMode) throws(FileSystemError)
    /// `rmdir(2)`: removes an empty folder; a folder already gone is not an error.
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
}

/// The real file system, through POSIX calls.
package struct PosixFileSystem: FileSystem {
    package init() {}

    /// `O_NOFOLLOW` on every file (not folder) open: a symlink planted where the outbox keeps a
    /// file (`lock`, a journal) in a shared folder would otherwise make the SDK write, or
    /// truncate, whatever it points to. The open fails with `ELOOP` instead, like any refusal.
    package func open(_ path: String, flags: Int32, mode: FileMode) throws(FileSystemError) -> Int32 {
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
        guard systemRename(from, to) == 0 else { throw FileSystemError(code: errno, operation: "rename", path: from) }
    }

    package func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError(code: errno, operation: "unlink", path: path) }
    }

    package func createDirectory(_ path: String, mode: FileMode) throws(FileSystemError) {
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
        guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError(code: errno, operation: "rmdir", path: path) }
    }

    package func setPermissions(_ path: String, mode: FileMode) throws(FileSystemError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw FileSystemError(code: errno, operation: "chmod", path: path) }
    }

    package func truncate(_ descriptor: Int32, path: String) throws(FileSystemError) {
        guard ftruncate(descriptor, 0) == 0 else { throw FileSystemError(code: errno, operation: "ftruncate", path: path) }
    }

    package func contents(ofDirectory path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else { throw FileSystemError(code: errno, operation: "opendir", path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package func read(_ path: String) throws(FileSystemError) -> [UInt8] {
        let descriptor = try open(path, flags: O_RDONLY, mode: 0)
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
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
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}

// The system calls under other names, so that the seam's methods can share theirs.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: FileMode) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, bytes, count) }
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(descriptor, bytes, count) }
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
