import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a hostile folder", .stuckTestLimit)
struct HostileFolderTests {
    @Test("a symlink planted as an area's lock or journal is never followed: the file it points to is untouched, and the events go to another area")
    func plantedSymlinks() async throws {
        let directory = TemporaryDirectory()
        let victim = TemporaryDirectory("victim")
        try FileManager.default.createDirectory(atPath: victim.path, withIntermediateDirectories: true)
        let precious = victim.path + "/precious.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: precious))
        try FileManager.default.createDirectory(atPath: directory.path + "/areas/a0", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/areas/a0/lock", withDestinationPath: precious)
        try FileManager.default.createDirectory(atPath: directory.path + "/areas/a1", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/areas/a1/journal-000000000001.log", withDestinationPath: precious)

        try await withTestClient(directory: directory) { test in
            for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            let events = try await test.flushedEvents()
            #expect(events.count == 5)
            #expect(try String(contentsOfFile: precious, encoding: .utf8) == "precious", "never written through a symlink")
        }
        victim.remove()
    }
}

@Suite("Hardening: a storage folder of another user", .stuckTestLimit)
struct ForeignFolderTests {
    @Test("a storage folder owned by another (non-root) user, or writable by everyone, is not trusted: one error line, memory only, nothing written in it")
    func foreignFolder() async throws {
        for setUp in ["owned by nobody", "world-writable"] {
            let directory = TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
            if setUp == "owned by nobody" {
                #expect(chown(directory.path, 65_534, 65_534) == 0, "the tests run as root")
            } else {
                #expect(chmod(directory.path, 0o777) == 0)
            }
            await withTestClient(directory: directory) { test in
                test.client.track("e")
                await test.drain()
                let errors = test.log.lines.filter { $0.level == .error }.map(\.message)
                #expect(errors.contains { $0.contains("another user could plant files") }, "\(setUp): \(errors)")
                #expect(JournalReader.files(under: directory.path).isEmpty, "\(setUp): nothing written")
                #expect(test.client.journalWatermark.eventsWritten == 0)
            }
        }
        #expect(OutboxActor.distrust(of: "/nonexistent-\(UUID().uuidString)") == nil, "a folder to be made is ours")
    }
}
