import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: log lines that say what happened, and nothing leaked by an ignored configure", .stuckTestLimit)
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

    @Test("configure called again 40 times: no session, thread or descriptor is left behind by the ignored calls")
    func ignoredConfigureLeaksNothing() async throws {
        await withTestClient { test in
            func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
            test.configure()
            // Other tests run in parallel in this process and open and close descriptors of their
            // own: a leak is one per ignored call in every round, their noise is not, so the
            // smallest growth of three rounds of 40 calls is the figure (a leak makes it 40).
            var growths: [Int] = []
            for _ in 0..<3 {
                let before = openDescriptors()
                for _ in 0..<40 { test.configure() }
                growths.append(openDescriptors() - before)
            }
            #expect(growths.min()! < 20, "descriptors grew by \(growths) in three rounds of 40 ignored calls")
            #expect(test.log.lines.filter { $0.message.contains("configure was called again") }.count == 121)
        }
    }
}
