import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23, item 8: the storage folder may be shared (`/tmp`, a folder holding another service's
/// data). The SDK sets the mode of the folders it makes, and of no other.
@Suite("Hardening: the storage folder's mode", .stuckTestLimit)
struct FolderModeTests {
    @Test("an existing storage folder keeps its mode (0755, 1777) through configure and launch; the folders the SDK makes are 0700")
    func existingFolderKeepsItsMode() async throws {
        for mode: mode_t in [0o755, 0o1777] {
            let directory = TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
            #expect(chmod(directory.path, mode) == 0)
            await withTestClient(directory: directory, adjust: { $0.usesInstallID = true }) { test in
                test.client.track("e")
                let events = try? await test.flushedEvents()
                #expect(events?.count == 1, "the folder is used: \(test.log.lines.map(\.message))")
                // Tests run as root, where permission bits stop nothing: the modes are read, not tried.
                #expect(Self.mode(of: directory.path) == mode, "\(String(mode, radix: 8)) kept")
                for made in ["areas", "quarantine", "areas/a0", "areas/a0/batches", "areas/a0/tmp", "areas/a0/set-aside"] {
                    #expect(Self.mode(of: directory.path + "/" + made) == 0o700, "\(made) in a \(String(mode, radix: 8)) folder")
                }
            }
        }
    }

    @Test("a storage folder the SDK makes is 0700, like every folder in it")
    func newFolderIsPrivate() async throws {
        let directory = TemporaryDirectory()
        await withTestClient(directory: directory) { test in
            test.client.track("e")
            await test.drain()
            for made in ["", "/areas", "/quarantine", "/areas/a0", "/areas/a0/batches"] {
                #expect(Self.mode(of: directory.path + made) == 0o700, "\(made)")
            }
        }
    }

    /// The permission bits (sticky bit included) of `path`, read with `stat`.
    static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
