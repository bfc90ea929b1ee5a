#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder opened once (``OpenedFolder``) and each file reached relative to it: the walk from
/// the root (``openFolder(_:path:creating:)``) is paid once per loop, not once per file.
extension PosixFileSystem {
    package func openFolder(at path: String) throws(FileSystemError) -> OpenedFolder {
        if let inside = try confinedComponents(of: path) {
            return OpenedFolder(path: path, descriptor: try openFolder(inside[...], path: path, creating: nil))
        }
        // Confined, only the root itself may be opened by path (its own path is the app's choice);
        // unconfined, any folder, as given.
        if root != nil, confinedRoot(path) == nil {
            throw FileSystemError(code: EPERM, operation: "open (only inside the storage folder \(root ?? "/"))", path: path)
        }
        let descriptor = openFolderByPath(path)
        guard descriptor >= 0 else { throw FileSystemError(code: errno, operation: "open", path: path) }
        return OpenedFolder(path: path, descriptor: descriptor)
    }

    package func closeFolder(_ folder: OpenedFolder) {
        if folder.descriptor >= 0 { _ = systemClose(folder.descriptor) }
    }

    package func names(in folder: OpenedFolder) throws(FileSystemError) -> [String] {
        // A description of its own: a listing's position is not shared with the loop's descriptor.
        let descriptor = try Self.openAt(try Self.valid(folder), ".", flags: O_RDONLY | O_DIRECTORY, mode: 0, path: folder.path)
        guard let names = listNames(descriptor) else { throw FileSystemError(code: errno, operation: "opendir", path: folder.path) }
        return names
    }

    package func readRegularFile(_ name: String, in folder: OpenedFolder) throws(FileSystemError) -> [UInt8] {
        try OpenedFolder.check(name, in: folder)
        let path = folder.path(of: name)
        // `O_NONBLOCK`: a FIFO planted under a batch's name must not hang launch; the type is
        // checked on the open file, so nothing can be swapped in between.
        let descriptor = try Self.openAt(try Self.valid(folder), name, flags: O_RDONLY | O_NONBLOCK, mode: 0, path: path)
        defer { _ = systemClose(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(code: errno, operation: "fstat", path: path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileSystemError(code: EINVAL, operation: "read (not a regular file)", path: path) }
        // Sized from the file, one byte more to see its end in the same call.
        var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(bytes.count, 4_096))) }
            let count = bytes.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count > 0 { filled += count; continue }
            if count == 0 { bytes.removeSubrange(filled...); return bytes }
            if errno != EINTR { throw FileSystemError(code: errno, operation: "read", path: path) }
        }
    }

    package func rename(_ name: String, in folder: OpenedFolder, to newName: String, in target: OpenedFolder) throws(FileSystemError) {
        try OpenedFolder.check(name, in: folder)
        try OpenedFolder.check(newName, in: target)
        guard renameat(try Self.valid(folder), name, try Self.valid(target), newName) == 0 else {
            throw FileSystemError(code: errno, operation: "rename", path: folder.path(of: name))
        }
    }

    package func remove(_ name: String, in folder: OpenedFolder) throws(FileSystemError) {
        try OpenedFolder.check(name, in: folder)
        guard unlinkat(try Self.valid(folder), name, 0) == 0 || errno == ENOENT else {
            throw FileSystemError(code: errno, operation: "unlink", path: folder.path(of: name))
        }
    }

    /// The folder's descriptor; a by-path folder (another file system's) is refused.
    private static func valid(_ folder: OpenedFolder) throws(FileSystemError) -> Int32 {
        guard folder.descriptor >= 0 else { throw FileSystemError(code: EBADF, operation: "use (not opened by this file system)", path: folder.path) }
        return folder.descriptor
    }
}

/// `open(2)` of a folder by its path (the root, or any folder when unconfined).
private func openFolderByPath(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
}

/// `read(2)`, under a name the seam's `read` does not hide.
private func readBytes(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}

/// The names in the open folder `descriptor` (taken over and closed), without `.` and `..`;
/// `nil` when it cannot be listed.
private func listNames(_ descriptor: Int32) -> [String]? {
    guard let directory = fdopendir(descriptor) else {
        _ = systemClose(descriptor)
        return nil
    }
    defer { closedir(directory) }
    return entryNames(directory)
}
