#if os(Linux)
import Glibc
import Foundation
import Synchronization

/// Catches `SIGTERM` and `SIGINT` with the self-pipe pattern: the handler only writes the
/// signal's number to a pipe (`write` is async-signal-safe), and a thread of the SDK's own reads
/// it and runs the shutdown, where anything may be called.
///
/// State: the pipe's write end lives in an `Atomic` global, so the handler, a plain C function,
/// reads it without locks or unsafe opt-outs.
enum TerminationSignals {
    /// The pipe's write end, or -1 before installation.
    private static let writeEnd = Atomic<Int32>(-1)

    /// Installs the handler once per process; `false` if it already was.
    static func install(_ onSignal: @escaping @Sendable (Int32) -> Void) -> Bool {
        var ends: [Int32] = [0, 0]
        // pipe2 is not exported by the Glibc module: pipe, then close-on-exec on both ends.
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        guard writeEnd.compareExchange(expected: -1, desired: ends[1], ordering: .acquiringAndReleasing).exchanged else {
            close(ends[0])
            close(ends[1])
            return false
        }
        let readEnd = ends[0]
        let thread = Thread {
            var number: Int32 = 0
            while true {
                let count = withUnsafeMutableBytes(of: &number) { read(readEnd, $0.baseAddress, $0.count) }
                if count == MemoryLayout<Int32>.size { onSignal(number); continue }
                if count < 0 && errno == EINTR { continue }
                return
            }
        }
        thread.name = "SimpleDataLogs.signals"
        thread.start()
        for number in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var value = number
                let descriptor = TerminationSignals.writeEnd.load(ordering: .acquiring)
                _ = withUnsafeBytes(of: &value) { write(descriptor, $0.baseAddress, $0.count) }
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        return true
    }
}
#endif
