#if os(Linux) && canImport(Glibc)
import Foundation
import Testing
@testable import SimpleDataLogs

/// How one `CrashChild` run ended.
private struct CrashChildEnding: Sendable {
    var reason: Process.TerminationReason
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `CrashChild` (built beside the test bundle) and waits for it on a thread of its own, so
/// the cooperative pool is never blocked; a watchdog bounds the wait.
private enum CrashChildRunner {
    /// ThreadSanitizer is in this process: the children are built with it too, and the Swift
    /// backtracer must be off in them. On Linux RTLD_DEFAULT is 0 (nil); -2 is macOS's value.
    static let isSanitized = isUnderSanitizer

    static func executable() -> String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("CrashChild").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// - Parameter recordFolder: Where the child keeps its crash record; nil for the control child.
    static func run(mode: String, recordFolder: URL?, folder: URL) async throws -> CrashChildEnding {
        let path = try #require(executable(), "CrashChild is built beside the test bundle")
        let name = "\(mode)-\(recordFolder == nil ? "control" : "recorder")"
        let outputURL = folder.appendingPathComponent("\(name).out")
        let errorURL = folder.appendingPathComponent("\(name).err")
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    var environment = ProcessInfo.processInfo.environment
                    if isSanitized {
                        environment["SWIFT_BACKTRACE"] = "enable=no"
                        // Otherwise ThreadSanitizer's own SIGSEGV handler turns the signal into
                        // exit 66 (in the control child and, chained, in the recorder child).
                        environment["TSAN_OPTIONS"] = (environment["TSAN_OPTIONS"].map { $0 + ":" } ?? "") + "handle_segv=0"
                        // Likewise AddressSanitizer's handlers would report the crash and exit 1.
                        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "handle_segv=0:handle_sigill=0:handle_abort=0:handle_sigbus=0:handle_sigfpe=0:detect_leaks=0"
                    } else {
                        environment.removeValue(forKey: "SWIFT_BACKTRACE")
                    }
                    // posix_spawn, not Process (see ChildProcess: Foundation's run() can crash the
                    // test process on Linux). The watchdog kills a child that hangs instead of
                    // dying (a handler deadlocked): the test fails on its SIGKILL, the run goes on.
                    let started = try LinuxSpawn.spawn(
                        path, arguments: [mode, recordFolder?.path ?? "none"], environment: environment,
                        standardOutput: .file(outputURL.path), standardError: .file(errorURL.path),
                        label: "CrashChild \(name)", watchdog: .seconds(180)
                    )
                    close(started.input)
                    let (reason, status) = started.child.wait()
                    return CrashChildEnding(
                        reason: reason,
                        status: status,
                        standardOutput: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
                        standardError: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
                    )
                })
            }.start()
        }
    }
}

/// One way to crash, and the signal it must end with.
struct CrashMode: Sendable, CustomTestStringConvertible {
    var name: String
    var signal: Int32
    var signalName: String
    var testDescription: String { name }

    #if arch(x86_64)
    static let trap: (Int32, String) = (SIGILL, "SIGILL")
    #else
    static let trap: (Int32, String) = (SIGTRAP, "SIGTRAP")
    #endif

    static let all = [
        CrashMode(name: "fatalError", signal: trap.0, signalName: trap.1),
        CrashMode(name: "forceUnwrap", signal: trap.0, signalName: trap.1),
        CrashMode(name: "overflow", signal: trap.0, signalName: trap.1),
        CrashMode(name: "segv", signal: SIGSEGV, signalName: "SIGSEGV"),
        CrashMode(name: "stackOverflow", signal: SIGSEGV, signalName: "SIGSEGV"),
        CrashMode(name: "abort", signal: SIGABRT, signalName: "SIGABRT"),
    ]
}

@Suite("Crash capture in real child processes", .stuckTestLimit, .tags(.processes), .skippedInFastLoop)
struct CrashChildProcessTests {
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a child that crashes dies exactly as the control child does, and its record becomes the right report", arguments: CrashMode.all)
    func crash(mode: CrashMode) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)

        let control = try await CrashChildRunner.run(mode: mode.name, recordFolder: nil, folder: folder)
        let recorded = try await CrashChildRunner.run(mode: mode.name, recordFolder: records, folder: folder)
        #expect(control.reason == .uncaughtSignal && control.status == mode.signal, "control: \(control.reason) \(control.status)")
        #expect(recorded.reason == control.reason && recorded.status == control.status, "recorder: \(recorded.reason) \(recorded.status)")
        #expect(recorded.standardOutput == "installed\n", "a second install in the same process returns false")
        if !CrashChildRunner.isSanitized {
            // Chained: the Swift runtime's backtracer still ran after our handler.
            #expect(recorded.standardError.contains("Backtracing"))
        }

        let leftovers = CrashRecordFiles.takeLeftovers(in: records.path, fileSystem: PosixFileSystem())
        #expect(leftovers.count == 1, "one record, the refused second install's file discarded")
        let leftover = try #require(leftovers.first)
        defer { leftover.file.discard() }
        let report = try #require(FatalSignalRecorder.report(fromRecord: leftover.bytes))
        #expect(report.exceptionName == mode.signalName)
        #expect(report.reason.hasPrefix("fatal signal \(mode.signal) (\(mode.signalName)), code "), "\(report.reason)")
        // abort() sends SIGABRT itself (code -6, SI_TKILL): no fault address.
        #expect(report.reason.contains(", address 0x") == (mode.name != "abort"), "\(report.reason)")
        let frames = report.stack.split(separator: "\n")
        #expect(!frames.isEmpty)
        #expect(frames.first?.contains("+0x") == true, "\(report.stack)")
        #expect(!report.stack.contains("/"), "frames name modules, never paths")
        #expect(frames.contains { $0.hasPrefix("CrashChild+0x") }, "\(report.stack)")

        switch mode.name {
        case "fatalError":
            #expect(control.standardError.contains("Fatal error: boom"))
            #expect(!report.reason.contains("boom"), "the runtime's message goes only to standard error")
        case "segv":
            #expect(report.reason.hasSuffix("address 0x10"))
            #expect(frames.first?.hasPrefix("CrashChild+0x") == true, "the top frame is the faulting write: \(report.stack)")
        case "stackOverflow":
            #expect(frames.count >= 100, "the recursion, up to 128 frames: \(frames.count)")
        case "abort":
            #expect(frames.contains { $0.hasPrefix("libc.so.6+0x") && $0.hasSuffix(" abort") }, "libc is the same file here, so dladdr names abort: \(report.stack)")
        default:
            break
        }

        let properties = report.properties(redaction: .standard)
        #expect(properties["exception_name"] == .string(mode.signalName))
    }

    @Test("an exception recorded before abort() (Apple's uncaught-exception path) is the record; the SIGABRT that follows only chains")
    func exceptionThenAbort() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        let control = try await CrashChildRunner.run(mode: "exception", recordFolder: nil, folder: folder)
        let recorded = try await CrashChildRunner.run(mode: "exception", recordFolder: records, folder: folder)
        #expect(control.standardOutput == "control\nexception not recorded\n", "no recorder installed: nothing to write to")
        #expect(recorded.standardOutput == "installed\nexception recorded\n")
        #expect(recorded.reason == .uncaughtSignal && recorded.status == SIGABRT, "still dies of abort()'s signal")

        let leftover = try #require(CrashRecordFiles.takeLeftovers(in: records.path, fileSystem: PosixFileSystem()).first)
        defer { leftover.file.discard() }
        let text = String(decoding: leftover.bytes, as: UTF8.self)
        #expect(!text.contains("signal "), "the signal handler wrote nothing after the exception: \(text)")
        let report = try #require(FatalSignalRecorder.report(fromRecord: leftover.bytes))
        #expect(report.exceptionName == "NSInvalidArgumentException")
        #expect(report.reason == "-[NSNull length]: unrecognized selector sent to instance 0x1f2e3d4c5b6a")
        #expect(report.stack.hasPrefix("0   CoreFoundation") && report.stack.hasSuffix("main + 32"), "\(report.stack)")
        let properties = report.properties(redaction: .standard)
        #expect(properties["exception_name"] == .string("NSInvalidArgumentException"))
        #expect(properties["reason"].map { "\($0)" }?.contains("1f2e3d4c5b6a") == false, "the standard redaction strips the address")
    }

    @Test("a child that installs the recorder and exits normally leaves an empty record: taken as nothing and deleted")
    func noCrash() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        let ending = try await CrashChildRunner.run(mode: "exit", recordFolder: records, folder: folder)
        #expect(ending.reason == .exit && ending.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: records.path)
        #expect(names.count == 1 && CrashRecordFiles.isRecordName(names[0]), "\(names)")
        #expect(CrashRecordFiles.takeLeftovers(in: records.path, fileSystem: PosixFileSystem()).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: records.path).isEmpty)
    }
}

@Suite("Crash recorder installation in this process", .stuckTestLimit)
struct CrashRecorderInstallTests {
    @Test("the first install wins, a second is a no-op returning false, and uninstall frees the slot and the file's lock")
    func installOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-install-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Lock attempts wait out a child being spawned by another test (see `SpawnGate`).
        let fileSystem = FaultInjectingFileSystem()
        let first = try CrashRecordFiles.create(in: folder.path, fileSystem: fileSystem)
        let second = try CrashRecordFiles.create(in: folder.path, fileSystem: fileSystem)

        #expect(FatalSignalRecorder.install(recordDescriptor: first.descriptor))
        #expect(!FatalSignalRecorder.install(recordDescriptor: second.descriptor))
        let attributes = try FileManager.default.attributesOfItem(atPath: first.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((attributes[.size] as? NSNumber)?.intValue == 0, "nothing is written until a crash")
        #expect(CrashRecordFiles.takeLeftovers(in: folder.path, fileSystem: fileSystem).isEmpty, "both files are locked by this process")
        #expect(FileManager.default.fileExists(atPath: first.path) && FileManager.default.fileExists(atPath: second.path))
        FatalSignalRecorder.uninstall()
        #expect(FatalSignalRecorder.install(recordDescriptor: second.descriptor))
        FatalSignalRecorder.uninstall()
        #expect(CrashRecordFiles.takeLeftovers(in: folder.path, fileSystem: fileSystem).isEmpty, "empty and unlocked: deleted")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
#endif
