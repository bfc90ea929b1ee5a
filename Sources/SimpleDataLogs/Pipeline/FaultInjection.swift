/// The seams through which tests and their child processes break a client, or watch it, at
/// points no public API reaches: the file system under the outbox, a gate before the journal
/// writer, a crash point in the sealing code, and the end of a release without `shutdown()`.
/// Kept apart from ``ClientTuning`` so that the CLI and the benchmarks, which only tune, never
/// touch one. The public initializer uses the defaults: the real file system and no fault.
package struct FaultInjection: Sendable {
    /// The file system the outbox and crash capture use; tests inject failing calls through it.
    package var fileSystem: any FileSystem = PosixFileSystem()
    /// Holds the journal writer until opened, so a test can pile events up in front of it.
    package var writerGate: WriterGate?
    /// Where the sealing code has the process killed with `SIGKILL` (crash tests' children).
    package var crashPoint: SealCrashPoint?
    /// Where the completeness receipts' code has the process killed with `SIGKILL`.
    package var receiptCrashPoint: ReceiptCrashPoint?
    /// Called once a client released without `shutdown()` has given back its files and threads.
    package var releasedWithoutShutdown: (@Sendable () -> Void)?

    /// No fault: the real file system, no gate, no crash point.
    package init() {}
}
