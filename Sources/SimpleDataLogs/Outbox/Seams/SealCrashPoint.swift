/// Points inside the real sealing code where a test can have the process killed with `SIGKILL`,
/// to prove that a crash between any two steps loses no event and duplicates none. Set only by
/// test children through ``FaultInjection``; production code never sets it.
package enum SealCrashPoint: String, Sendable, CaseIterable {
    /// The events are written to the journal, not yet synced (the chunk's `write`).
    case afterJournalWrite
    /// The journal is synced but not renamed.
    case afterJournalSync
    /// The journal is renamed into `batches/`: sealed.
    case afterRename
}
