import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: log lines that say what happened, and nothing leaked by an ignored configure", .stuckTestLimit, .skippedInFastLoop)
struct HonestLogTests {
    @Test("an outbox whose areas cannot be made (EROFS) says so, not \"held by another process\"")
    func readOnlyFolder() async throws {
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.failCreatingDirectories(containing: "/areas/a", with: EROFS)
        await withTestClient(faults: fileSystem.injection) { test in
            test.client.track("e")
            await test.drain()
            let errors = test.log.lines.filter { $0.level == .error }.map(\.message)
            #expect(errors.contains { $0.contains("Could not open an outbox area") && $0.contains("Read-only file system") }, "\(errors)")
            #expect(!errors.contains { $0.contains("held by another process") })
        }
    }

    @Test("configure called again 40 times: no session, thread or descriptor is left behind by the ignored calls", .tags(.processes))
    func ignoredConfigureLeaksNothing() async throws {
        await withTestClient { test in
            for _ in 0..<40 { test.configure() }
            #expect(test.log.lines.filter { $0.message.contains("configure was called again") }.count == 40)
        }
        // The descriptors are counted in a child process, where no other test runs: a leaked
        // URLSession's descriptor is no file under the test's folder, so a count in this process
        // could not be filtered by path, and other tests running in parallel moved it (a
        // process-wide count reached its bound once in CI). A leak is one per ignored call (40).
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = try await onOwnThread { [path = directory.path] in
            let child = try ChildProcess("OutboxCrashChild", ["descriptors-configure-again", path, "40"])
            let output = child.readToEnd()
            _ = child.wait()
            return output
        }
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("descriptors before ") }, "\(output)")
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 2 && numbers[0] > 0, "\(line)")
        #expect(numbers[1] - numbers[0] < 20, "descriptors grew from \(numbers[0]) to \(numbers[1]) over 40 ignored calls")
    }
}
