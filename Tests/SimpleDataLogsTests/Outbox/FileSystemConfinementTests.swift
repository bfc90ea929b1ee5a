import Foundation
import Testing
@testable import SimpleDataLogs

/// The seam's confinement, call by call, on real folders and links (no outbox, no threads).
@Suite("Outbox: the file system confined to the storage folder")
struct FileSystemConfinementTests {
    /// A storage folder with a real `areas/a0/batches`, and `areas/a0/tmp` linked to a folder
    /// outside holding `precious.txt`.
    private static func linkedFolder() throws -> (root: String, outside: String) {
        let root = TemporaryDirectory().path
        let outside = TemporaryDirectory("outside").path
        try FileManager.default.createDirectory(atPath: root + "/areas/a0/batches", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/precious.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/areas/a0/tmp", withDestinationPath: outside)
        return (root, outside)
    }

    /// The error `call` throws, if any.
    private func failure(_ call: () throws -> Void) -> FileSystemError? {
        do { try call() } catch let error as FileSystemError { return error } catch { return FileSystemError(code: 0, operation: "\(error)", path: "") }
        return nil
    }

    @Test("every call through a linked folder is refused as a link, and what the link points to is untouched")
    func linkedFolderIsRefused() throws {
        let (root, outside) = try Self.linkedFolder()
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        let fileSystem = PosixFileSystem(confinedTo: root)
        let tmp = root + "/areas/a0/tmp"
        var refusals: [(call: String, error: FileSystemError?)] = []
        refusals.append(("read", failure { _ = try fileSystem.read(tmp + "/precious.txt") }))
        refusals.append(("open a file", failure { _ = try fileSystem.open(tmp + "/new", flags: O_WRONLY | O_CREAT, mode: 0o600) }))
        refusals.append(("open the folder", failure { _ = try fileSystem.open(tmp, flags: O_RDONLY | O_DIRECTORY, mode: 0) }))
        refusals.append(("list", failure { _ = try fileSystem.contents(ofDirectory: tmp) }))
        refusals.append(("remove", failure { try fileSystem.remove(tmp + "/precious.txt") }))
        refusals.append(("rename out", failure { try fileSystem.rename(tmp + "/precious.txt", to: root + "/areas/a0/batches/x") }))
        refusals.append(("rename in", failure { try fileSystem.rename(root + "/areas/a0/batches", to: tmp + "/batches") }))
        refusals.append(("make a folder", failure { try fileSystem.createDirectory(tmp, mode: 0o700) }))
        refusals.append(("make a folder in it", failure { try fileSystem.createDirectory(tmp + "/inner", mode: 0o700) }))
        refusals.append(("remove a folder in it", failure { try fileSystem.removeDirectory(tmp + "/inner") }))
        refusals.append(("chmod", failure { try fileSystem.setPermissions(tmp + "/precious.txt", mode: 0o600) }))
        for refusal in refusals {
            #expect(refusal.error?.isRefusedLink == true, "\(refusal.call): \(String(describing: refusal.error))")
        }
        #expect(failure { try fileSystem.removeDirectory(tmp) } != nil, "rmdir of a link fails (ENOTDIR), never removes the target")
        #expect(!fileSystem.isRegularFile(tmp + "/precious.txt") && !fileSystem.isDirectory(tmp))
        #expect(fileSystem.isDirectory(root + "/areas/a0/batches"), "real folders are reached")
        let described = refusals.first?.error?.description ?? ""
        #expect(described.contains("refused to follow the link \(tmp)"), "the line names the link: \(described)")
        #expect(try String(contentsOfFile: outside + "/precious.txt", encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == ["precious.txt"], "nothing made or moved there")
    }

    @Test("without confinement, the same calls follow the link: what the confined seam prevents")
    func unconfinedFollows() throws {
        let root = TemporaryDirectory().path
        let outside = TemporaryDirectory("outside").path
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createDirectory(atPath: root + "/areas/a0", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/precious.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/areas/a0/tmp", withDestinationPath: outside)
        try PosixFileSystem().remove(root + "/areas/a0/tmp/precious.txt")
        #expect(!FileManager.default.fileExists(atPath: outside + "/precious.txt"))
    }

    @Test("a confined file system removes and renames nothing outside its folder, nor the folder itself")
    func nothingOutside() throws {
        let root = TemporaryDirectory().path
        let outside = TemporaryDirectory("outside").path
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside + "/empty", withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/precious.txt"))
        let fileSystem = PosixFileSystem(confinedTo: root + "/")
        #expect(failure { try fileSystem.remove(outside + "/precious.txt") } != nil)
        #expect(failure { try fileSystem.rename(outside + "/precious.txt", to: root + "/x") } != nil)
        #expect(failure { try fileSystem.removeDirectory(outside + "/empty") } != nil)
        #expect(failure { try fileSystem.removeDirectory(root) } != nil, "nor the root")
        let climbing = root + "/../" + (outside as NSString).lastPathComponent + "/precious.txt"
        #expect(failure { try fileSystem.remove(climbing) }?.code == EINVAL, "no climbing out with ..")
        #expect(FileManager.default.fileExists(atPath: outside + "/precious.txt") && FileManager.default.fileExists(atPath: outside + "/empty"))
        #expect(FileManager.default.fileExists(atPath: root))
    }

    @Test("links in the path above the root are the app's choice and followed; folders made below it are 0700, and an existing one keeps its mode")
    func rootPathIsFollowed() throws {
        let real = TemporaryDirectory().path
        let linkedParent = TemporaryDirectory("linked-parent").path
        defer { try? FileManager.default.removeItem(atPath: real); try? FileManager.default.removeItem(atPath: linkedParent) }
        try FileManager.default.createDirectory(atPath: real + "/outbox/areas", withIntermediateDirectories: true)
        #expect(chmod(real + "/outbox/areas", 0o755) == 0)
        try FileManager.default.createSymbolicLink(atPath: linkedParent, withDestinationPath: real)
        let root = linkedParent + "/outbox"
        let fileSystem = PosixFileSystem(confinedTo: root)
        try fileSystem.createDirectory(root + "/areas/a0/batches", mode: 0o700)
        let descriptor = try fileSystem.open(root + "/areas/a0/batches/b", flags: O_WRONLY | O_CREAT, mode: 0o600)
        fileSystem.close(descriptor)
        try fileSystem.rename(root + "/areas/a0/batches/b", to: root + "/areas/a0/c")
        #expect(try fileSystem.contents(ofDirectory: root + "/areas/a0").sorted() == ["batches", "c"])
        #expect(FileManager.default.fileExists(atPath: real + "/outbox/areas/a0/c"))
        #expect(Self.mode(of: real + "/outbox/areas") == 0o755)
        #expect(Self.mode(of: real + "/outbox/areas/a0") == 0o700 && Self.mode(of: real + "/outbox/areas/a0/batches") == 0o700)
        try fileSystem.remove(root + "/areas/a0/c")
        try fileSystem.removeDirectory(root + "/areas/a0/batches")
        #expect(try fileSystem.contents(ofDirectory: root + "/areas/a0").isEmpty)
    }

    /// The permission bits of `path`, read with `stat` (the tests run as root: modes are read, not tried).
    private static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
