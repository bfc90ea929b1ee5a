import Foundation
import Testing
import SimpleDataLogs

/// The built `sdl` executable, run as a child process: the exit status really reaches the shell,
/// and Ctrl-C really ends `sdl ingest` with a summary.
@Suite("CLI: the sdl binary", .stuckTestLimit, .skippedInFastLoop)
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

    @Test("--version and a usage error reach the shell as 0 and 64", .tags(.processes))
    func exitStatus() async throws {
        let binary = try #require(Self.binary, "build with --build-tests so sdl is beside the tests")
        let version = try await SDLChild(binary, ["--version"]).finish()
        #expect(version.status == 0 && version.output == "sdl 0.4.0\n")
        let usage = try await SDLChild(binary, ["send"]).finish()
        #expect(usage.status == 64 && usage.errors.contains("event name is missing"))
    }

    @Test("sdl ingest ends on SIGINT and on SIGTERM with a summary and exit 0", .tags(.processes, .sockets), arguments: [SIGINT, SIGTERM])
    func ingestInterrupt(signal: Int32) async throws {
        let binary = try #require(Self.binary, "build with --build-tests so sdl is beside the tests")
        let child = try SDLChild(binary, ["ingest", "--port", "0"])
        let listening = try await child.waitForError("\"listening on\"") { $0.contains("listening on") }
        #expect(listening, "sdl ingest closed standard error without saying it listens")
        child.signal(signal)
        let result = try await child.finish()
        #expect(result.status == 0)
        #expect(result.errors.contains("sdl ingest: stopped. 0 requests"))
    }
}

/// One child process of a package executable (`sdl`, the example server). Its output is
/// collected by a reader thread per pipe into a lock; the test awaits conditions on it without
/// blocking a thread of the cooperative pool, each wait bounded in real time.
///
/// Why threads and not the pipes' `readabilityHandler`: on Linux that handler does not reliably
/// report the end of a stream (here it was missing for about one child in ten that writes and
/// exits at once), and the end of the streams is what ``finish(limit:)`` waits for.
final class SDLChild: Sendable {
    private let process: Process
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private let state = Locked(State())
    let pid: Int32
    /// The command line, for failure messages.
    let label: String

    private struct State: Sendable {
        var output = Data()
        var errors = Data()
        var outputClosed = false
        var errorsClosed = false
        /// The exit status (the signal's number when a signal ended it), once reaped.
        var status: Int32?
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
    }

    /// A task waiting until `isMet` holds for the state.
    private struct Waiter: Sendable {
        var isMet: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    /// Starts the child.
    /// - Parameter watchdog: How long the child may live (real time). Past it the child is killed
    ///   with `SIGKILL`, so a test that left it running (a failed wait, a thrown error) never
    ///   leaves it behind to outlive the run.
    init(_ binary: String, _ arguments: [String], environment: [String: String] = [:], watchdog: Duration = .seconds(300)) throws {
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
        let state = state
        process.terminationHandler = { ended in
            let status = ended.terminationStatus
            Self.update(state) { $0.status = status }
        }
        try SpawnGate.spawning { try process.run() }
        self.process = process
        pid = process.processIdentifier
        label = ([URL(fileURLWithPath: binary).lastPathComponent] + arguments).joined(separator: " ")
        // Blocking reads, each on a thread of its own, up to the end of the stream; a
        // descendant that keeps a write end open keeps its thread waiting, not the test.
        Self.startReader(outputPipe.fileHandleForReading, name: "SDLChild.stdout \(pid)", into: state) { state, data in
            if data.isEmpty { state.outputClosed = true } else { state.output.append(data) }
        }
        Self.startReader(errorPipe.fileHandleForReading, name: "SDLChild.stderr \(pid)", into: state) { state, data in
            if data.isEmpty { state.errorsClosed = true } else { state.errors.append(data) }
        }
        let pid = pid
        DispatchQueue.global().asyncAfter(deadline: .after(watchdog)) { [label] in
            if Self.kill(pid, SIGKILL, unlessReapedIn: state) {
                FileHandle.standardError.write(Data("SDLChild watchdog: \(label) still running after \(watchdog); killed with SIGKILL\n".utf8))
            }
        }
    }

    /// A child still running when its test lets go of it is killed, never left behind.
    deinit {
        _ = Self.kill(pid, SIGKILL, unlessReapedIn: state)
    }

    /// Reads `handle` to the end of its stream on a new thread, handing each chunk to `take`
    /// (an empty one at the end).
    private static func startReader(
        _ handle: FileHandle, name: String, into state: Locked<State>, _ take: @escaping @Sendable (inout State, Data) -> Void
    ) {
        let thread = Thread {
            // The thread holds the handle, so its descriptor stays this pipe's until the end
            // (never a number another file got after the child object was released). read(2)
            // itself rather than `availableData`, which traps on EINTR.
            withExtendedLifetime(handle) {
                let descriptor = handle.fileDescriptor
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    let data = count > 0 ? Data(buffer[0..<count]) : Data()
                    update(state) { take(&$0, data) }
                    if count <= 0 { return }
                }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Applies `change` and resumes every waiter whose condition now holds.
    private static func update(_ state: Locked<State>, _ change: (inout State) -> Void) {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
            change(&state)
            let met = state.waiters.filter { $0.value.isMet(state) }
            for id in met.keys { state.waiters.removeValue(forKey: id) }
            return met.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Sends `signal` unless the child was already reaped (its pid may belong to another
    /// process by then); checked under the lock the termination handler sets.
    private static func kill(_ pid: Int32, _ signal: Int32, unlessReapedIn state: Locked<State>) -> Bool {
        state.withLock { state in
            guard state.status == nil else { return false }
            Foundation.kill(pid, signal)
            return true
        }
    }

    /// Suspends until `isMet` holds for the state, or the calling task is cancelled (which
    /// ``withTimeLimit(_:waitingFor:_:)`` does at its limit).
    private func park(until isMet: @escaping @Sendable (State) -> Bool) async {
        let state = state
        let id: Int = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { state in
                    if isMet(state) || Task.isCancelled { return true }
                    state.waiters[id] = Waiter(isMet: isMet, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Waits until standard error so far satisfies `condition`, or the child closes it.
    /// - Parameters:
    ///   - what: What `condition` looks for, in words, for the failure message.
    ///   - limit: How long to wait at most (real time).
    /// - Returns: Whether the condition held; false when the child closed standard error first.
    /// - Throws: ``TimedOut`` when neither happened within `limit`: a child that keeps running
    ///   without printing it fails the test instead of hanging the run.
    func waitForError(_ what: String, within limit: Duration = testWaitLimit, _ condition: @escaping @Sendable (String) -> Bool) async throws -> Bool {
        let met: @Sendable (State) -> Bool = { condition(String(decoding: $0.errors, as: UTF8.self)) }
        try await withTimeLimit(limit, waitingFor: "`\(label)` to write \(what) to standard error") { [self] in
            await park { met($0) || $0.errorsClosed }
        }
        return state.withLock { met($0) }
    }

    func signal(_ number: Int32) { _ = Self.kill(pid, number, unlessReapedIn: state) }

    /// Waits for the child to exit and for the end of its output; returns its status and
    /// everything it wrote. A child still running after `limit` is killed (status 9), so a broken
    /// signal path fails the test instead of hanging the run.
    ///
    /// The rest of the output is read by the reader threads up to the end of each stream, never
    /// by a blocking read on a thread of the cooperative pool; a descendant that still holds a
    /// pipe's write end makes the wait time out rather than block forever.
    func finish(limit: Duration = .seconds(20)) async throws -> (status: Int32, output: String, errors: String) {
        let pid = pid
        let state = state
        DispatchQueue.global().asyncAfter(deadline: .after(limit)) {
            _ = Self.kill(pid, SIGKILL, unlessReapedIn: state)
        }
        try await withTimeLimit(limit + testWaitLimit, waitingFor: "`\(label)` to exit (killed with SIGKILL after \(limit))") { [self] in
            await park { $0.status != nil }
        }
        try await withTimeLimit(waitingFor: "the end of `\(label)`'s standard output and standard error after it exited") { [self] in
            await park { $0.outputClosed && $0.errorsClosed }
        }
        return state.withLock { state in
            (state.status ?? -1, String(decoding: state.output, as: UTF8.self), String(decoding: state.errors, as: UTF8.self))
        }
    }
}
