import Foundation
@testable import SimpleDataLogs

/// A real child process of one of the package's helper executables, for crash tests.
/// Deliberately not `Sendable`: create and use it inside one `onOwnThread` block.
///
/// On Linux it is spawned with `posix_spawn` (``LinuxSpawn``), not Foundation's `Process`:
/// there, `Process.run()` lists `/proc/self/fd` copying each entry's whole 256-byte name, which
/// reads past the end of `readdir`'s buffer once this process holds more than about 1,300
/// descriptors (a full run holds up to 2,400), and now and then that read meets an unmapped
/// page: a SIGSEGV of the whole test process (swift-corelibs-foundation #5472, fixed after
/// Swift 6.3.1; seen twice in this suite, once in CI).
final class ChildProcess {
    #if os(Linux)
    private let child: LinuxSpawn.Child
    #else
    private let process = Process()
    #endif
    private let output: FileHandle
    private let input: FileHandle
    private var buffered = Data()

    /// The path of a helper executable built beside the test bundle.
    static func executable(_ name: String) -> String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Starts the child.
    /// - Parameters:
    ///   - standardErrorToo: Whether standard error goes into the same pipe as standard output
    ///   (otherwise it is the test process's own).
    ///   - watchdog: How long the child may live (real time). Past it the child is killed with
    ///   `SIGKILL` and a line on standard error says so: a child that hangs (a sanitizer's runtime
    ///   deadlocked in a signal handler, say) fails its test, as a child killed by a signal it did
    ///   not expect, instead of hanging the whole run. Every blocking wait below ends by then:
    ///   the kill closes the child's pipes and reaps it.
    init(
        _ name: String, _ arguments: [String], environment extra: [String: String] = [:],
        standardErrorToo: Bool = false, watchdog: Duration = .seconds(180)
    ) throws {
        guard let path = Self.executable(name) else { throw ChildError.notBuilt(name) }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extra) { _, new in new }
        let label = "\(name) \(arguments.joined(separator: " "))"
        #if os(Linux)
        let spawned = try LinuxSpawn.spawn(
            path, arguments: arguments, environment: environment, standardError: standardErrorToo ? .standardOutput : .inherited,
            label: label, watchdog: watchdog
        )
        child = spawned.child
        output = FileHandle(fileDescriptor: spawned.output ?? -1, closeOnDealloc: true)
        input = FileHandle(fileDescriptor: spawned.input, closeOnDealloc: true)
        #else
        let outputPipe = Pipe()
        let inputPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = outputPipe
        if standardErrorToo { process.standardError = outputPipe }
        process.standardInput = inputPipe
        output = outputPipe.fileHandleForReading
        input = inputPipe.fileHandleForWriting
        try runWatched(process, label: label, watchdog: watchdog)
        #endif
    }

    /// Reads lines until one satisfies `predicate` or the output ends; returns that line.
    /// Blocking: call from a thread of your own (see `onOwnThread`).
    func readLine(until predicate: (String) -> Bool) -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered.removeSubrange(buffered.startIndex...newline)
                if predicate(line) { return line }
                continue
            }
            let chunk = output.availableData
            if chunk.isEmpty { return nil }
            buffered.append(chunk)
        }
    }

    /// Reads the output to its end (the child closes it, or dies). Blocking: call from a thread
    /// of your own (see `onOwnThread`).
    func readToEnd() -> String {
        while true {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            buffered.append(chunk)
        }
        defer { buffered.removeAll() }
        return String(decoding: buffered, as: UTF8.self)
    }

    /// Writes one line to the child's standard input.
    func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Kills the child with SIGKILL and reaps it.
    func kill() {
        #if os(Linux)
        child.kill()
        _ = child.wait()
        #else
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #endif
    }

    /// Waits for the child to end by itself and returns how: the exit status, or the signal.
    func wait() -> (reason: Process.TerminationReason, status: Int32) {
        #if os(Linux)
        return child.wait()
        #else
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
        #endif
    }

    enum ChildError: Error { case notBuilt(String) }
}

/// Starts `process` (inside ``SpawnGate``) with a watchdog: still running after `watchdog` (real
/// time), it is killed with `SIGKILL` and a line on standard error names it. Sets the process's
/// termination handler; the kill is decided under the lock that handler sets, so a reaped
/// child's pid, which another process may have by then, is never signalled.
func runWatched(_ process: Process, label: String, watchdog: Duration) throws {
    let ended = Locked(false)
    process.terminationHandler = { _ in ended.withLock { $0 = true } }
    try SpawnGate.spawning { try process.run() }
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .after(watchdog)) {
        let killed: Bool = ended.withLock { ended in
            guard !ended else { return false }
            Foundation.kill(pid, SIGKILL)
            return true
        }
        if killed { FileHandle.standardError.write(Data("child process watchdog: \(label) still running after \(watchdog); killed with SIGKILL\n".utf8)) }
    }
}

/// Runs blocking work (reading a child's pipe, waiting for it) on a thread of its own, so the
/// cooperative pool is never blocked by a test.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

@available(*, unavailable)
extension ChildProcess: Sendable {}
