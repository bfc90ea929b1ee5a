#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

extension SimpleDataLogsClient {
    /// Journals every event tracked so far, blocking the calling thread for at most `timeout`.
    ///
    /// The one place the SDK blocks a thread it does not own, and only at termination: the exit
    /// hook on Linux, and `applicationWillTerminate` on Apple platforms (DESIGN.md, "Lifecycle").
    /// Never call it from a task: it would hold a thread of the cooperative pool.
    /// - Returns: Whether everything reached the journal in time.
    @discardableResult
    @available(*, noasync, message: "Blocks the calling thread; await flush() instead.")
    func drainSynchronously(timeout: Duration) -> Bool {
        guard pipeline != nil, !isShutDown else { return true }
        let barrier = Barrier()
        intake.enqueue(.barrier(barrier))
        return barrier.blockUntilPassed(timeout: .after(timeout))
    }

    /// Shuts the client down gracefully on `SIGTERM` and `SIGINT`, then exits with
    /// `128 + signal`: for a server or command-line tool that wants its events sent before a
    /// container or a Ctrl-C stops it. Opt-in, never installed silently: it logs one line when
    /// installed. Apps need not call it: on Apple platforms the lifecycle adapters flush at
    /// termination.
    ///
    /// The signals are then caught instead of killing the process at once; call it only if
    /// nothing else in the process handles them.
    /// - Parameter timeLimit: How long the last send may take.
    public func shutdownOnTerminationSignals(timeLimit: Duration = .seconds(5)) {
        // Kept for the life of the process: the catcher is never stopped.
        let catcher = TerminationSignals.start { [self] number in
            logger.info("Signal \(number) received: shutting down (sending for at most \(timeLimit)), then exiting.")
            Task {
                await shutdown(timeLimit: timeLimit)
                exit(128 + number)
            }
        }
        logger.info(catcher != nil
            ? "Will shut down gracefully on SIGTERM and SIGINT."
            : "Termination signals are already handled by another client; this one is not shut down by them.")
    }
}
