/// Points inside the real sealing code where a test can have the process killed with `SIGKILL`,
/// to prove that a crash between any two steps loses no event and duplicates none. Set only by
/// test children through ``FaultInjection``; production code never sets it.
package enum SealCrashPoint: String, Sendable, CaseIterable {
    /// The events are written to the journal, not yet synced (the chunk's `write`).
    case afterJournalWrite
    /// The journal thread handed the full journal to the sealer and went on; nothing synced yet.
    case afterHandOff
    /// The sealer synced the group's journals (data and folder), renamed none.
    case afterJournalSync
    /// The sealer renamed the group's first journal into `batches/`: sealed.
    case afterRename
}
