import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a hostile folder")
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

        let test = TestClient(directory: directory)
        for seq in 0..<5 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        let events = try await test.flushedEvents()
        #expect(events.count == 5)
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "precious", "never written through a symlink")
        await test.tearDown()
        victim.remove()
    }
}
