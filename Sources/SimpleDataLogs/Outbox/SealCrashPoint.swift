/// Points inside the real sealing code where a test can have the process killed with `SIGKILL`,
/// to prove that a crash between any two steps loses no event and duplicates none. Set only by
/// test children through the package-level hooks; production code never sets it.
package enum SealCrashPoint: String, Sendable, CaseIterable {
    /// The events are written to the journal, not yet synced (the chunk's `write`).
    case afterJournalWrite
    /// The journal is synced but not renamed.
    case afterJournalSync
    /// The journal is renamed into `batches/`: sealed.
    case afterRename
}

/// The seams tests reach the client through: an injected file system, a gate before the
/// journal writer, a crash point, and the environment the client reads.
package struct TestHooks: Sendable {
    package var fileSystem: any FileSystem = PosixFileSystem()
    package var writerGate: WriterGate?
    package var crashPoint: SealCrashPoint?
    package var sealPolicy: SealPolicy?
    package var caps: OutboxCaps?
    /// Whether the uploader runs; outbox unit tests turn it off to look at files undisturbed.
    package var startsUploader = true
    /// Multiplies every backoff delay (`sdl demo` shortens the wait, and says so).
    package var backoffScale: Double = 1
    /// Called once a client released without `shutdown()` has given back its files and threads.
    package var releasedWithoutShutdown: (@Sendable () -> Void)?

    package init() {}
}
