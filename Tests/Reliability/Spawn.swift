#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What a child said, gathered by its reader thread.
struct ChildReport: Sendable {
    var startSeq: Int64
    /// Threads the child tracked from; thread `i` takes seqs `startSeq + i`, `+ threads`, …
    var threads = 1
    /// The highest seq each thread announced (`lastAnnounced` is the highest of them): a seq is
    /// announced when it is at most its thread's, and has returned when it is below it.
    var lastAnnouncedByThread: [Int64?] = [nil]
    /// The highest seq announced (`t N`), hence possibly tracked; `nil` if none.
    var lastAnnounced: Int64?
    /// How many seqs were announced.
    var announced = 0
    /// The highest seq the child reported journaled (`w N`); `nil` if none.
    var lastWatermark: Int64?
    /// Seqs announced before the first watermark line (the journal's start: recovery first).
    var announcedBeforeFirstWatermark: Int?
    /// The largest gap between the last announced seq and a watermark line, over the child's
    /// life (how far the journal trailed `track` while it ran).
    var largestLag: Int64 = 0
    /// Lines that were neither `ready`, `t` nor `w` (anomalies, surprises).
    var otherLines: [String] = []
    /// Whether it said `ready`.
    var sawReady = false
    /// How long after `configure` its intake log was open (`log N`, microseconds); nil when it
    /// said `nolog` or nothing.
    var logOpenMicroseconds: Int?
    /// It said `nolog`: it ran without an intake log.
    var withoutLog = false
    /// Events the outbox's caps dropped, as the child last reported them (`c N`): counted drops,
    /// not losses. A child killed right after an eviction may not have said it yet.
    var evictedByCaps = 0
    /// The raw `waitpid` status.
    var waitStatus: Int32 = 0

    /// The thread that tracked `seq`.
    func thread(of seq: Int64) -> Int { Int((seq - startSeq) % Int64(threads)) }

    /// Whether `seq` was announced (its thread reached it).
    func hasAnnounced(_ seq: Int64) -> Bool {
        seq >= startSeq && (lastAnnouncedByThread[thread(of: seq)].map { seq <= $0 } ?? false)
    }

    /// Whether the call of `seq` had returned: its thread announced a later one.
    func hasReturned(_ seq: Int64) -> Bool {
        seq >= startSeq && (lastAnnouncedByThread[thread(of: seq)].map { seq < $0 } ?? false)
    }

    /// Whether it died of `SIGKILL` (as every child should).
    var killedBySIGKILL: Bool { (waitStatus & 0x7f) == SIGKILL }
    var exitDescription: String {
        let signal = waitStatus & 0x7f
        if signal == 0 { return "exit \((waitStatus >> 8) & 0xff)" }
        return "signal \(signal)"
    }
}

/// What the reader thread tells the driver.
enum ChildSignal: Sendable {
    case ready
    case finished(ChildReport)
}

/// A running child, spawned with `posix_spawn` (not `Process`, whose own reaping would race a
/// `waitpid` of ours), its standard output on a pipe that a thread of its own reads.
struct SpawnedChild: Sendable {
    let pid: pid_t
    let signals: AsyncStream<ChildSignal>

    /// Starts `executable` with `arguments`; its standard error goes to `stderrDescriptor`.
    static func spawn(
        executable: String, arguments: [String], environment: [String: String], stderrDescriptor: Int32, startSeq: Int64,
        threads: Int = 1
    ) throws -> SpawnedChild {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SpawnError(message: "pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(fds[1]) }

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrDescriptor, 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            close(fds[0])
            throw SpawnError(message: "posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        let readEnd = fds[0]
        let childPID = pid
        let (stream, continuation) = AsyncStream<ChildSignal>.makeStream()
        // A diagnostic: SDL_RELIABILITY_STALL_DUMP=<events> has gdb print every thread's stack
        // of the first child whose journal trails `track` by that many events after its first
        // watermark, into <folder of the children's log>/stall-<pid>.txt.
        let stallDump = ProcessInfo.processInfo.environment["SDL_RELIABILITY_STALL_DUMP"].flatMap { Int64($0) }
        let dumpFolder = environment["SDL_RELIABILITY_DUMP_FOLDER"] ?? "/tmp"
        let thread = Thread {
            var report = ChildReport(startSeq: startSeq, threads: threads, lastAnnouncedByThread: Array(repeating: nil, count: threads))
            var dumped = false
            readLines(readEnd) { line in
                if line.hasPrefix("t "), let seq = Int64(line.dropFirst(2)) {
                    report.announced += 1
                    report.lastAnnounced = max(report.lastAnnounced ?? seq, seq)
                    let thread = report.thread(of: seq)
                    report.lastAnnouncedByThread[thread] = max(report.lastAnnouncedByThread[thread] ?? seq, seq)
                    if let stallDump, !dumped, let mark = report.lastWatermark, seq - mark >= stallDump {
                        dumped = true
                        dumpStacks(pid: childPID, into: "\(dumpFolder)/stall-\(childPID).txt", note: "seq \(seq) watermark \(mark)")
                    }
                } else if line.hasPrefix("w "), let seq = Int64(line.dropFirst(2)) {
                    report.lastWatermark = max(report.lastWatermark ?? seq, seq)
                    if report.announcedBeforeFirstWatermark == nil { report.announcedBeforeFirstWatermark = report.announced }
                    if let last = report.lastAnnounced { report.largestLag = max(report.largestLag, last - seq) }
                } else if line.hasPrefix("c "), let count = Int(line.dropFirst(2)) {
                    report.evictedByCaps = max(report.evictedByCaps, count)
                } else if line.hasPrefix("log "), let micros = Int(line.dropFirst(4)) {
                    report.logOpenMicroseconds = micros
                } else if line == "nolog" {
                    report.withoutLog = true
                } else if line == "ready" {
                    report.sawReady = true
                    continuation.yield(.ready)
                } else if report.otherLines.count < 20 {
                    report.otherLines.append(line)
                }
            }
            close(readEnd)
            var status: Int32 = 0
            while waitpid(childPID, &status, 0) < 0 && errno == EINTR {}
            report.waitStatus = status
            continuation.yield(.finished(report))
            continuation.finish()
        }
        thread.name = "reliability.child.\(childPID)"
        thread.start()
        return SpawnedChild(pid: pid, signals: stream)
    }
}

/// Runs gdb on `pid` and writes every thread's stack to `path` (diagnostics only).
private func dumpStacks(pid: pid_t, into path: String, note: String) {
    let command = "echo '\(note)' > \(path); gdb -p \(pid) -batch -ex 'thread apply all bt' >> \(path) 2>&1"
    let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var shell: pid_t = 0
    guard posix_spawn(&shell, "/bin/sh", nil, nil, argv, environ) == 0 else { return }
    var status: Int32 = 0
    while waitpid(shell, &status, 0) < 0 && errno == EINTR {}
}

/// Reads `descriptor` until end of file, calling `line` for each complete line.
private func readLines(_ descriptor: Int32, _ line: (String) -> Void) {
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            break
        }
        if count == 0 { break }
        var start = 0
        for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
            pending += buffer[start..<index]
            line(String(decoding: pending, as: UTF8.self))
            pending.removeAll(keepingCapacity: true)
            start = index + 1
        }
        pending += buffer[start..<count]
    }
    if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
}

struct SpawnError: Error, CustomStringConvertible, Sendable {
    var message: String
    var description: String { message }
}

/// The path of this program, for spawning it again as a child.
func ownExecutablePath() -> String {
    #if os(Linux)
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
    #endif
    let first = CommandLine.arguments[0]
    if first.hasPrefix("/") { return first }
    return FileManager.default.currentDirectoryPath + "/" + first
}
