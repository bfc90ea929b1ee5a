#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSignals
import Foundation

/// Catches `SIGTERM` and `SIGINT`, the package's one catcher: the SDK's
/// `shutdownOnTerminationSignals()` and `sdl ingest`'s Ctrl-C both use it.
///
/// The self-pipe pattern: the handler (C, `CSignals`) only writes the signal's number to a pipe,
/// and a thread of the catcher's own reads it and calls `onSignal`, where anything may be done.
/// Installed with `sigaction`, so it is in force when ``start(onSignal:)`` returns (no window in
/// which a signal is lost). Process-wide: one catcher at a time.
package final class TerminationSignals: Sendable {
    private let writeEnd: Int32
    private let stopped = Locked(false)

    private init(writeEnd: Int32) {
        self.writeEnd = writeEnd
    }

    /// Starts catching: from now on `SIGTERM` and `SIGINT` no longer end the process; each one's
    /// number goes to `onSignal`, on the catcher's thread.
    /// - Parameter onSignal: Called once per signal received.
    /// - Returns: The catcher, or nil when another one in this process has the signals (or no
    ///   pipe could be made).
    package static func start(onSignal: @escaping @Sendable (Int32) -> Void) -> TerminationSignals? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        // Close-on-exec on both ends, so a child process never holds the pipe.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        guard sdl_termination_signals_install(writeEnd) == 1 else {
            close(readEnd)
            close(writeEnd)
            return nil
        }
        let thread = Thread {
            Thread.current.name = "sdl.signals"
            var number: Int32 = 0
            while true {
                let count = withUnsafeMutableBytes(of: &number) { read(readEnd, $0.baseAddress, $0.count) }
                if count == MemoryLayout<Int32>.size { onSignal(number); continue }
                if count < 0 && errno == EINTR { continue }
                // End of the pipe: the catcher was stopped.
                close(readEnd)
                return
            }
        }
        thread.name = "sdl.signals"
        thread.start()
        return TerminationSignals(writeEnd: writeEnd)
    }

    /// Gives the two signals their previous actions back and ends the catcher's thread.
    /// Idempotent.
    package func stop() {
        let first: Bool = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        sdl_termination_signals_uninstall()
        close(writeEnd)
    }
}
