#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Launch with 100,000 batch files spent most of its time walking from the root to each file
/// (issue 23, item 7, after the confined walk: about ten system calls per file call). Its loops
/// now open each folder once and reach every file relative to it (``OpenedFolder``), as safe as
/// the walk: one name in the folder, never a path, never through a link.
@Suite("Hardening: launch reaches batch files relative to an opened folder", .stuckTestLimit)
struct OpenedFolderTests {
    @Test("launch on 2,000 files in dead areas: every file recovered, with path-based calls (a walk from the root each) far fewer than files")
    func launchAvoidsPerFileWalks() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = 2_000
        try LaunchScaleTests.leftOutbox(files: files, in: directory)
        let counting = CountingFileSystem(PosixFileSystem())
        var faults = FaultInjection()
        faults.fileSystem = counting
        let test = TestClient(faults: faults, directory: directory) { configuration in
            configuration.limits.outboxFiles = 1_000_000
            configuration.limits.outboxEvents = 1_000_000
        }
        test.client.track("after_launch")
        // The journal is written by the actor that recovers: once it holds the event, launch is done.
        await test.drain()
        #expect(test.client.counters.recovered == files)
        let walks = counting.pathCalls
        // Before: a read, a type check and an adoption rename per file (more than 6,000).
        #expect(walks < files / 10, "\(walks) path-based file calls for \(files) files")
        await shutDown(test.client, timeLimit: .zero)
    }

    @Test("an opened folder takes one name, never a path: '/', '.', '..' and '' are refused; a link, a folder and a FIFO are not read; a linked folder is not opened")
    func openedFolderIsConfined() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let outside = TemporaryDirectory()
        defer { outside.remove() }
        let root = directory.path
        let fileSystem = PosixFileSystem(confinedTo: root)
        try fileSystem.createDirectory(root + "/areas/a0/batches", mode: 0o700)
        try FileManager.default.createDirectory(atPath: outside.path, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside.path + "/target"))
        #expect(symlink(outside.path + "/target", root + "/areas/a0/batches/link") == 0)
        #expect(mkfifo(root + "/areas/a0/batches/fifo", 0o600) == 0)
        #expect(mkdir(root + "/areas/a0/batches/folder", 0o700) == 0)
        try Data("ok".utf8).write(to: URL(fileURLWithPath: root + "/areas/a0/batches/file"))
        #expect(symlink(outside.path, root + "/areas/a1") == 0)

        let folder = try fileSystem.openFolder(at: root + "/areas/a0/batches")
        defer { fileSystem.closeFolder(folder) }
        #expect(try fileSystem.readRegularFile("file", in: folder) == Array("ok".utf8))
        #expect(Set(try fileSystem.names(in: folder)) == ["link", "fifo", "folder", "file"])
        for name in ["link", "fifo", "folder"] {
            #expect(throws: FileSystemError.self, "\(name) is not read") { try fileSystem.readRegularFile(name, in: folder) }
        }
        for name in ["../../../x", "a/b", ".", "..", ""] {
            #expect(throws: FileSystemError.self) { try fileSystem.rename("file", in: folder, to: name, in: folder) }
            #expect(throws: FileSystemError.self) { try fileSystem.remove(name, in: folder) }
        }
        #expect(throws: FileSystemError.self, "a linked folder is refused") { try fileSystem.openFolder(at: root + "/areas/a1/batches") }
        #expect(throws: FileSystemError.self, "outside the root") { try fileSystem.openFolder(at: outside.path) }
        try fileSystem.remove("link", in: folder)
        #expect(FileManager.default.fileExists(atPath: outside.path + "/target"), "the link went, not its target")
    }
}

/// The real file system, counting the calls that name a file by its path (each a walk from the
/// root when confined); the opened-folder calls go to the real descriptor-relative ones.
final class CountingFileSystem: FileSystem {
    private let real: PosixFileSystem
    private let counted: Locked<Int>

    init(_ real: PosixFileSystem, counted: Locked<Int> = Locked(0)) {
        self.real = real
        self.counted = counted
    }

    /// Path-based opens, reads, renames, removes and type checks so far.
    var pathCalls: Int { counted.withLock { $0 } }
    private func count() { counted.withLock { $0 += 1 } }

    func confined(to root: String) -> any FileSystem { CountingFileSystem(PosixFileSystem(confinedTo: root), counted: counted) }
    func open(_ path: String, flags: Int32, mode: FileMode) throws(FileSystemError) -> Int32 { count(); return try real.open(path, flags: flags, mode: mode) }
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int { try real.write(descriptor, bytes, path: path) }
    func sync(_ descriptor: Int32, path: String) throws(FileSystemError) { try real.sync(descriptor, path: path) }
    func startWriteback(_ descriptor: Int32, path: String) { real.startWriteback(descriptor, path: path) }
    func syncData(_ descriptor: Int32, path: String) throws(FileSystemError) { try real.syncData(descriptor, path: path) }
    func flushDriveCache(_ descriptor: Int32, path: String) throws(FileSystemError) { try real.flushDriveCache(descriptor, path: path) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func rename(_ from: String, to: String) throws(FileSystemError) { count(); try real.rename(from, to: to) }
    func linkNew(_ from: String, to: String) throws(FileSystemError) { count(); try real.linkNew(from, to: to) }
    func remove(_ path: String) throws(FileSystemError) { count(); try real.remove(path) }
    func createDirectory(_ path: String, mode: FileMode) throws(FileSystemError) { try real.createDirectory(path, mode: mode) }
    func removeDirectory(_ path: String) throws(FileSystemError) { try real.removeDirectory(path) }
    func setPermissions(_ path: String, mode: FileMode) throws(FileSystemError) { try real.setPermissions(path, mode: mode) }
    func truncate(_ descriptor: Int32, path: String) throws(FileSystemError) { try real.truncate(descriptor, path: path) }
    func contents(ofDirectory path: String) throws(FileSystemError) -> [String] { try real.contents(ofDirectory: path) }
    func read(_ path: String) throws(FileSystemError) -> [UInt8] { count(); return try real.read(path) }
    // Lock attempts wait out a child being spawned by another test (see `SpawnGate`).
    func tryLock(_ descriptor: Int32) -> Bool { SpawnGate.withNoSpawnInFlight { real.tryLock(descriptor) } }
    func isRegularFile(_ path: String) -> Bool { count(); return real.isRegularFile(path) }
    func isDirectory(_ path: String) -> Bool { real.isDirectory(path) }
    func openFolder(at path: String) throws(FileSystemError) -> OpenedFolder { try real.openFolder(at: path) }
    func closeFolder(_ folder: OpenedFolder) { real.closeFolder(folder) }
    func names(in folder: OpenedFolder) throws(FileSystemError) -> [String] { try real.names(in: folder) }
    func readRegularFile(_ name: String, in folder: OpenedFolder) throws(FileSystemError) -> [UInt8] { try real.readRegularFile(name, in: folder) }
    func rename(_ name: String, in folder: OpenedFolder, to newName: String, in target: OpenedFolder) throws(FileSystemError) {
        try real.rename(name, in: folder, to: newName, in: target)
    }
    func remove(_ name: String, in folder: OpenedFolder) throws(FileSystemError) { try real.remove(name, in: folder) }
}
