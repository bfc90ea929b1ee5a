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

@Suite("ThreadSanitizer catches a planted race")
struct RaceCanaryTests {
    @Test("a lock forgotten in an @unchecked Sendable box is reported; the guarded version is clean")
    func plantedRace() throws {
        let path = try #require(canaryPath(), "RaceCanary is built with the tests")
        func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["TSAN_OPTIONS"] = "halt_on_error=0"
            process.environment = environment
            let pipe = Pipe()
            process.standardError = pipe
            process.standardOutput = pipe
            try SpawnGate.spawning { try process.run() }
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        let racy = try run([])
        let guarded = try run(["--guarded"])
        #expect(guarded.status == 0 && !guarded.output.contains("ThreadSanitizer"), "\(guarded.output)")
        if isThreadSanitizerActive {
            #expect(racy.output.contains("ThreadSanitizer: data race") || racy.output.contains("ThreadSanitizer: Swift access race"), "\(racy.output)")
            #expect(racy.status != 0)
        } else {
            #expect(racy.output.contains("RaceCanary finished"))
        }
    }
}
