import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under ThreadSanitizer.
private var isThreadSanitizerActive: Bool {
    // The main program's handle sees every symbol loaded with it, the sanitizer runtime included.
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(program, "__tsan_init") != nil
}

/// The RaceCanary executable, built beside the test bundle.
private func canaryPath() -> String? {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("RaceCanary").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}

@Suite("ThreadSanitizer catches a planted race", .stuckTestLimit, .tags(.processes), .skippedInFastLoop)
struct RaceCanaryTests {
    @Test("a lock forgotten in an @unchecked Sendable box is reported; the guarded version is clean")
    func plantedRace() async throws {
        _ = try #require(canaryPath(), "RaceCanary is built with the tests")
        // Read and waited for on a thread of its own, never on the cooperative pool; the child
        // has a watchdog, and the wait a time limit.
        @Sendable func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await withTimeLimit(waitingFor: "RaceCanary \(arguments.joined(separator: " ")) to finish") {
                try await onOwnThread {
                    let child = try ChildProcess("RaceCanary", arguments, environment: ["TSAN_OPTIONS": "halt_on_error=0"], standardErrorToo: true)
                    let output = child.readToEnd()
                    return (child.wait().status, output)
                }
            }
        }
        let racy = try await run([])
        let guarded = try await run(["--guarded"])
        #expect(guarded.status == 0 && !guarded.output.contains("ThreadSanitizer"), "\(guarded.output)")
        if isThreadSanitizerActive {
            #expect(racy.output.contains("ThreadSanitizer: data race") || racy.output.contains("ThreadSanitizer: Swift access race"), "\(racy.output)")
            #expect(racy.status != 0)
        } else {
            #expect(racy.output.contains("RaceCanary finished"))
        }
    }
}
