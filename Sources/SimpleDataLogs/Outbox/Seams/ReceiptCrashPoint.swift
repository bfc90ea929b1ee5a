/// Points inside the receipts' code where a test can have the process killed with `SIGKILL`, to
/// prove that a kill between any two of their stored steps loses and doubles nothing. Set only by
/// test children through ``FaultInjection``; production code never sets it.
package enum ReceiptCrashPoint: String, Sendable, CaseIterable {
    /// A delivery's counts and its batch file's name are in the ledger file; the file is not
    /// deleted yet.
    case afterSettlement
    /// A receipt's counts moved into a pending receipt in the ledger file; its event is not
    /// journaled yet.
    case afterReceiptBegun
    /// The receipt's event is written to the journal; the ledger still calls it pending.
    case afterReceiptJournaled
}
