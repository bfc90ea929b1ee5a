import Foundation
import Testing
import SimpleDataLogs

/// The built `sdl` executable, run as a child process: the exit status really reaches the shell,
/// and Ctrl-C really ends `sdl ingest` with a summary.
@Suite("CLI: the sdl binary")
struct CLIBinaryTests {
    /// `sdl` beside the test bundle: walks up from the test binary's folder.
    static var binary: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("sdl").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    @Test("--version and a usage error reach the shell as 0 and 64")
    func exitStatus() async throws {
        let binary = try #require(Self.binary, "build with --build-tests so sdl is beside the tests")
        let version = try await SDLChild(binary, ["--version"]).finish()
        #expect(version.status == 0 && version.output == "sdl 0.4.0\n")
        let usage = try await SDLChild(binary, ["send"]).finish()
        #expect(usage.status == 64 && usage.errors.contains("event name is missing"))
    }

    @Test("sdl ingest ends on SIGINT and on SIGTERM with a summary and exit 0", arguments: [SIGINT, SIGTERM])
    func ingestInterrupt(signal: Int32) async throws {
        let binary = try #require(Self.binary, "build with --build-tests so sdl is beside the tests")
        let child = try SDLChild(binary, ["ingest", "--port", "0"])
        let listening = await child.waitForError { $0.contains("listening on") }
        #expect(listening)
        child.signal(signal)
        let result = try await child.finish()
        #expect(result.status == 0)
        #expect(result.errors.contains("sdl ingest: stopped. 0 requests"))
    }
}

/// One `sdl` child process. Output is collected by the pipes' handlers (on Foundation's
/// threads) into a lock; the test awaits conditions on it without blocking a thread.
final class SDLChild: Sendable {
    private let process: Process
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private let state = Locked(State())
    private let exited: AsyncStream<Int32>
    let pid: Int32

    private struct State {
        var output = Data()
        var errors = Data()
        var errorWaiters: [(condition: @Sendable (String) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    }

    init(_ binary: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        // A clean environment, but the sanitizers' options go along: without the test run's
        // `ASAN_OPTIONS=detect_leaks=0` a child built with AddressSanitizer reports what is
        // still allocated at exit as leaks and exits 1.
        let sanitizerOptions = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }
        process.environment = ["PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"]
            .merging(sanitizerOptions) { _, given in given }
            .merging(environment) { _, given in given }
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        let (exited, exit) = AsyncStream.makeStream(of: Int32.self)
        self.exited = exited
        process.terminationHandler = { exit.yield($0.terminationStatus); exit.finish() }
        let state = state
        outputPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            state.withLock { $0.output.append(data) }
        }
        errorPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
                state.errors.append(data)
                let text = String(decoding: state.errors, as: UTF8.self)
                let (met, waiting) = (state.errorWaiters.filter { $0.condition(text) }, state.errorWaiters.filter { !$0.condition(text) })
                state.errorWaiters = waiting
                return met.map(\.continuation)
            }
            ready.forEach { $0.resume(returning: true) }
            if data.isEmpty {
                handle.readabilityHandler = nil
                let left = state.withLock { state in
                    defer { state.errorWaiters = [] }
                    return state.errorWaiters.map(\.continuation)
                }
                left.forEach { $0.resume(returning: false) }
            }
        }
        try SpawnGate.spawning { try process.run() }
        self.process = process
        pid = process.processIdentifier
    }

    /// Waits until standard error so far satisfies `condition` (or the child closes it).
    func waitForError(_ condition: @escaping @Sendable (String) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if condition(String(decoding: state.errors, as: UTF8.self)) { return true }
                state.errorWaiters.append((condition, continuation))
                return false
            }
            if now { continuation.resume(returning: true) }
        }
    }

    func signal(_ number: Int32) { _ = kill(pid, number) }

    /// Waits for the child to exit; returns its status and everything it wrote. A child still
    /// running after `limit` is killed (status 9), so a broken signal path fails the test
    /// instead of hanging the run.
    func finish(limit: Duration = .seconds(20)) async throws -> (status: Int32, output: String, errors: String) {
        let pid = pid
        let exited = exited
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                var status: Int32 = -1
                for await code in exited { status = code }
                return status
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { kill(pid, SIGKILL) }
                return nil
            }
            var status: Int32 = -1
            for await result in group {
                if let result {
                    status = result
                    group.cancelAll()
                }
            }
            return status
        }
        // What is still in the pipes after the exit.
        let restOut = (try? outputPipe.fileHandleForReading.readToEnd()) ?? nil
        let restErr = (try? errorPipe.fileHandleForReading.readToEnd()) ?? nil
        return state.withLock { state in
            (status, String(decoding: state.output + (restOut ?? Data()), as: UTF8.self), String(decoding: state.errors + (restErr ?? Data()), as: UTF8.self))
        }
    }
}
