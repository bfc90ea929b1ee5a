#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Who owns an area: `flock(LOCK_EX)` on the area's folder itself, and on its `lock` file.
///
/// Why the folder: a lock on a file is a lock on that file's inode. When the `lock` file was the
/// only lock, deleting it behind a live owner (a cleanup script, a hand tidying the folder) let the
/// next process create a new `lock`, lock that, and write into the same area beside the owner. A
/// folder cannot be unlinked while it holds files, and a new folder of the same name is a new
/// area. The `lock` file is still locked too, so a process of an earlier version (which knows only
/// the file) also sees the area as held, and it still names the owner's pid for `sdl outbox`.
package struct AreaLock: Sendable {
    private let folderDescriptor: Int32
    private let fileDescriptor: Int32
    /// The `lock` file, which names the owner's pid.
    var lockFileDescriptor: Int32 { fileDescriptor }

    /// Why an area could not be locked.
    package enum Refusal: Error {
        /// Another process (or client) holds it.
        case held
        /// The folder or its `lock` file could not be opened.
        case failed(FileSystemError)
    }

    /// Takes both locks of `area`, whose folder must exist, or neither.
    package static func acquire(_ area: AreaLayout, fileSystem: any FileSystem) -> Result<AreaLock, Refusal> {
        let folder: Int32
        do {
            folder = try fileSystem.open(area.folder, flags: O_RDONLY | O_DIRECTORY, mode: 0)
        } catch {
            return .failure(.failed(error))
        }
        guard fileSystem.tryLock(folder) else {
            fileSystem.close(folder)
            return .failure(.held)
        }
        let file: Int32
        do {
            file = try fileSystem.open(area.lockFile, flags: O_RDWR | O_CREAT, mode: 0o600)
        } catch {
            fileSystem.close(folder)
            return .failure(.failed(error))
        }
        guard fileSystem.tryLock(file) else {
            fileSystem.close(file)
            fileSystem.close(folder)
            return .failure(.held)
        }
        return .success(AreaLock(folderDescriptor: folder, fileDescriptor: file))
    }

    /// Whether `area.folder` still names the folder this lock holds. False once that folder, or
    /// the storage folder above it, was deleted (or moved, or replaced by another of the same
    /// name): a folder made again at that path is not locked by anyone, so a second process
    /// could take it as its own area. The outbox checks before it writes, and takes an area again
    /// instead of making the old one's folders again (DESIGN.md, "Disk faults").
    func stillNames(_ area: AreaLayout) -> Bool {
        var held = stat()
        var named = stat()
        guard fstat(folderDescriptor, &held) == 0, stat(area.folder, &named) == 0 else { return false }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// Gives both locks back.
    package func release(fileSystem: any FileSystem) {
        fileSystem.close(fileDescriptor)
        fileSystem.close(folderDescriptor)
    }
}
