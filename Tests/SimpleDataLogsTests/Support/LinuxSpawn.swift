#if os(Linux)
import Foundation
import Glibc
@testable import SimpleDataLogs

/// Spawning a child with `posix_spawn` on Linux, for ``ChildProcess``: Foundation's
/// `Process.run()` there can crash the test process (see ``ChildProcess``).
///
/// What `Process` did that matters here, done by hand: every descriptor of this process but the
/// child's three is closed in the child (`posix_spawn_file_actions_addclosefrom_np`), so a child
/// never holds another test's pipe open; the child gets a process group of its own; a thread of
/// ours reaps it, so its end is known to the watchdog and to ``Child/wait()``.
enum LinuxSpawn {
    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// A spawned child: reaped by a thread of its own.
    final class Child: Sendable {
        let pid: pid_t
        private let state = Locked<(ended: Bool, status: Int32)>((false, 0))
        private let ended = DispatchSemaphore(value: 0)

        init(pid: pid_t) {
            self.pid = pid
            Thread { [self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                state.withLock { $0 = (true, status) }
                ended.signal()
            }.start()
        }

        /// Whether it has been reaped.
        var hasEnded: Bool { state.withLock { $0.ended } }

        /// Sends SIGKILL, unless it was reaped already (its pid may be another process's by then).
        func kill() {
            state.withLock { state in
                guard !state.ended else { return }
                _ = Glibc.kill(pid, SIGKILL)
            }
        }

        /// Blocks until it ends: how, as Foundation's `Process` says it.
        func wait() -> (reason: Process.TerminationReason, status: Int32) {
            ended.wait()
            ended.signal()  // for the next caller
            let status = state.withLock { $0.status }
            let signal = status & 0x7F
            return signal == 0 ? (.exit, (status >> 8) & 0xFF) : (.uncaughtSignal, signal)
        }
    }

    /// `int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int)`
    /// (glibc 2.34): not in the Glibc module, found once with `dlsym`.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    /// Where a child's standard output or error goes.
    enum Destination {
        /// A pipe whose read end this process gets.
        case pipe
        /// A file, made or emptied.
        case file(String)
        /// The same pipe as standard output (for standard error).
        case standardOutput
        /// This process's own.
        case inherited
    }

    /// A started child and this process's ends of its pipes.
    struct Started {
        var child: Child
        var input: Int32
        var output: Int32?
        var error: Int32?
    }

    /// Starts `path` with `arguments` and `environment` (nothing else of this process's); its
    /// standard input is a pipe this process writes.
    static func spawn(
        _ path: String, arguments: [String], environment: [String: String],
        standardOutput: Destination = .pipe, standardError: Destination = .inherited, label: String, watchdog: Duration
    ) throws -> Started {
        guard let addCloseFrom else { throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc before 2.34)") }
        // Every pipe close-on-exec from the start, made inside the gate so no spawn runs between
        // a pipe and its flag (pipe2 is not in the Glibc module): the child gets its ends through
        // dup2, which clears the flag, and no other child ever inherits them.
        var pipes: [[Int32]] = []
        let made: Bool = SpawnGate.spawning {
            for _ in 0..<3 {
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { return false }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                pipes.append(ends)
            }
            return true
        }
        guard made else {
            pipes.joined().forEach { close($0) }
            throw SpawnError(description: "pipe: errno \(errno)")
        }
        let (stdinPipe, stdoutPipe, stderrPipe) = (pipes[0], pipes[1], pipes[2])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        for (descriptor, destination) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch destination {
            case .pipe: posix_spawn_file_actions_adddup2(&actions, descriptor == 1 ? stdoutPipe[1] : stderrPipe[1], descriptor)
            case .file(let file): posix_spawn_file_actions_addopen(&actions, descriptor, file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], descriptor)
            case .inherited: break
            }
        }
        _ = addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        // Inside the gate: no lock attempt of this process runs while the child holds copies of
        // its descriptors (``SpawnGate``). posix_spawn returns once the child has exec'd.
        let result = SpawnGate.spawning { posix_spawn(&pid, path, &actions, &attributes, argv, envp) }
        for end in [stdinPipe[0], stdoutPipe[1], stderrPipe[1]] { close(end) }
        func keep(_ readEnd: Int32, if wanted: Bool) -> Int32? {
            if wanted { return readEnd }
            close(readEnd)
            return nil
        }
        let output = keep(stdoutPipe[0], if: result == 0 && {
            if case .pipe = standardOutput { return true }
            if case .standardOutput = standardError { return true }
            return false
        }())
        let error = keep(stderrPipe[0], if: result == 0 && { if case .pipe = standardError { return true } else { return false } }())
        guard result == 0 else {
            close(stdinPipe[1])
            throw SpawnError(description: "posix_spawn \(path): errno \(result)")
        }
        let child = Child(pid: pid)
        DispatchQueue.global().asyncAfter(deadline: .after(watchdog)) {
            guard !child.hasEnded else { return }
            child.kill()
            FileHandle.standardError.write(Data("child process watchdog: \(label) still running after \(watchdog); killed with SIGKILL\n".utf8))
        }
        return Started(child: child, input: stdinPipe[1], output: output, error: error)
    }
}
#endif
