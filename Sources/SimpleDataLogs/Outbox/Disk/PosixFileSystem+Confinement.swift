#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a confined ``PosixFileSystem`` reaches a path inside the storage folder: from the root,
/// one folder at a time, each opened with `O_NOFOLLOW | O_DIRECTORY` relative to the one above.
///
/// Why not `lstat` each folder and then act by path: between the check and the call, a folder
/// can be swapped for a link (another user's process in a shared folder). A descriptor names the
/// folder that was checked, whatever its name points to a moment later, so each step acts on
/// exactly what the step before opened. No descriptor is kept between calls: a root deleted and
/// made again is found again by the next call.
extension PosixFileSystem {
    /// The components of `path` below the root, or `nil` when the file system is not confined
    /// or `path` is not strictly inside the root (the root itself, a path elsewhere).
    /// - Throws: `EINVAL` for a `.` or `..` component, which could climb out of the root.
    func confinedComponents(of path: String) throws(FileSystemError) -> [Substring]? {
        guard let root = confinedRoot(path) else { return nil }
        let components = path.dropFirst(root.count).split(separator: "/")
        guard !components.isEmpty else { return nil }
        if components.contains(where: { $0 == "." || $0 == ".." }) {
            throw FileSystemError(code: EINVAL, operation: "resolve (no . or .. inside the storage folder)", path: path)
        }
        return components
    }

    /// The root, when the file system is confined and `path` is the root or below it.
    func confinedRoot(_ path: String) -> String? {
        guard let root else { return nil }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path == root || path.hasPrefix(prefix) ? root : nil
    }

    /// The components of `path`, which a removal or rename of a confined file system must name
    /// inside the root: anything else (the root itself, a path elsewhere) is refused.
    func insideOnly(_ path: String, operation: String) throws(FileSystemError) -> [Substring] {
        guard let components = try confinedComponents(of: path) else {
            throw FileSystemError(code: EPERM, operation: "\(operation) (only inside the storage folder \(root ?? "/"))", path: path)
        }
        return components
    }

    /// Runs `body` with the open folder holding the last of `components` and that last name.
    func withParent<Result>(
        _ components: [Substring], path: String, _ body: (Int32, String) throws(FileSystemError) -> Result
    ) throws(FileSystemError) -> Result {
        let folder = try openFolder(components.dropLast(), path: path, creating: nil)
        defer { _ = systemClose(folder) }
        return try body(folder, String(components[components.count - 1]))
    }

    /// Opens the folder the root's `components` name, walking down from the root; with
    /// `creating`, makes each missing folder on the way with that mode (an existing one keeps its
    /// own). A link on the way is refused (``FileSystemError/linkRefused(_:)``).
    /// - Returns: The folder's descriptor, which the caller closes.
    func openFolder(_ components: ArraySlice<Substring>, path: String, creating mode: FileMode?) throws(FileSystemError) -> Int32 {
        guard let root else { throw FileSystemError(code: EINVAL, operation: "resolve (not confined)", path: path) }
        var folder = root.withCString { systemOpenDirectory($0) }
        guard folder >= 0 else { throw FileSystemError(code: errno, operation: "open", path: root) }
        // The path walked so far, for an error's message only (built then, off the common path).
        func walked(_ end: ArraySlice<Substring>.Index) -> String {
            components[...end].reduce(root) { $0 + "/" + $1 }
        }
        for index in components.indices {
            let name = String(components[index])
            if let mode, mkdirat(folder, name, mode_t(mode)) != 0, errno != EEXIST {
                let code = errno
                _ = systemClose(folder)
                throw FileSystemError(code: code, operation: "mkdir", path: walked(index))
            }
            let next = openat(folder, name, Self.folderFlags, 0)
            if next < 0 {
                let error = Self.refusal(errno, in: folder, name: name, operation: "open", path: walked(index))
                _ = systemClose(folder)
                throw error
            }
            _ = systemClose(folder)
            folder = next
        }
        return folder
    }

    /// How each folder on the way is opened: as a folder, never through a link.
    static let folderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

    /// `openat(2)` of a file or folder in `folder`, never through a link.
    static func openAt(_ folder: Int32, _ name: String, flags: Int32, mode: FileMode, path: String) throws(FileSystemError) -> Int32 {
        while true {
            let descriptor = openat(folder, name, flags | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw refusal(errno, in: folder, name: name, operation: "open", path: path) }
        }
    }

    /// The error for a failed call on `name` in `folder`: a link there (Linux answers
    /// `O_NOFOLLOW | O_DIRECTORY` on one with `ENOTDIR`, a plain `O_NOFOLLOW` with `ELOOP`) is
    /// named as such, so the log line says what to remove.
    static func refusal(_ code: Int32, in folder: Int32, name: String, operation: String, path: String) -> FileSystemError {
        var info = stat()
        if code == ENOTDIR || code == ELOOP, fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFLNK {
            return .linkRefused(path)
        }
        return FileSystemError(code: code, operation: operation, path: path)
    }
}

/// `open(2)` of the root folder, following links in its own path (the app chose it).
private func systemOpenDirectory(_ path: UnsafePointer<CChar>) -> Int32 {
    open(path, PosixFileSystem.folderFlags & ~O_NOFOLLOW)
}
