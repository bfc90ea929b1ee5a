#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder opened once for a loop over its files (launch reads, adopts and deletes up to
/// hundreds of thousands of them). Why: a confined file system reaches every path by walking
/// from the root, one `openat` and `close` per folder on the way; a loop that names each file by
/// its path pays that walk per file, which made it most of launch's time. A loop that opens the
/// folder once pays it once, and each file costs only its own `*at()` call.
///
/// The descriptor names the folder the walk checked (no link on the way), for as long as the
/// loop runs, exactly as a single call's walk does for that call. Names given with it are single
/// names in that folder, never paths (no `/`, `.` or `..`), so no call can leave it.
package struct OpenedFolder: Sendable {
    /// The folder's path, for errors, log lines and seams that act by path.
    package let path: String
    /// The open folder, or -1 when the file system acts by path (``FileSystem``'s defaults).
    package let descriptor: Int32

    /// The path of `name` in this folder.
    package func path(of name: String) -> String { path + "/" + name }

    /// Refuses anything that is not one name in this folder.
    static func check(_ name: String, in folder: OpenedFolder) throws(FileSystemError) {
        if name.isEmpty || name == "." || name == ".." || name.utf8.contains(UInt8(ascii: "/")) {
            throw FileSystemError(code: EINVAL, operation: "resolve (one name in the folder)", path: folder.path(of: name))
        }
    }
}

/// By path, for file systems that act on paths only (the tests' fault-injecting one): the same
/// results as ``PosixFileSystem``'s descriptor-relative calls, without their speed.
extension FileSystem {
    package func openFolder(at path: String) throws(FileSystemError) -> OpenedFolder {
        guard isDirectory(path) else { throw FileSystemError(code: ENOTDIR, operation: "open", path: path) }
        return OpenedFolder(path: path, descriptor: -1)
    }

    package func closeFolder(_ folder: OpenedFolder) {}

    package func names(in folder: OpenedFolder) throws(FileSystemError) -> [String] {
        try contents(ofDirectory: folder.path)
    }

    package func readRegularFile(_ name: String, in folder: OpenedFolder) throws(FileSystemError) -> [UInt8] {
        try OpenedFolder.check(name, in: folder)
        let path = folder.path(of: name)
        guard isRegularFile(path) else { throw FileSystemError(code: EINVAL, operation: "read (not a regular file)", path: path) }
        return try read(path)
    }

    package func rename(_ name: String, in folder: OpenedFolder, to newName: String, in target: OpenedFolder) throws(FileSystemError) {
        try OpenedFolder.check(name, in: folder)
        try OpenedFolder.check(newName, in: target)
        try rename(folder.path(of: name), to: target.path(of: newName))
    }

    package func remove(_ name: String, in folder: OpenedFolder) throws(FileSystemError) {
        try OpenedFolder.check(name, in: folder)
        try remove(folder.path(of: name))
    }
}
