/// When the client sends a completeness receipt: a small `delivery_receipt` event that says what
/// became of the events whose fate was settled since the last receipt (delivered, rejected,
/// evicted by the caps…), with the SDK's and the app's version. See <doc:ReadingReceipts>.
///
/// Each outbox area keeps what the next receipt will say in a small file, so the counts survive
/// a kill or a crash; collection turned off wipes it, and no receipt is sent while it is off.
public enum CompletenessReceipts: Sendable, Hashable {
    /// No receipts, no ledger file.
    case off
    /// Once a day per install (per outbox area): at the first launch a day or more after the
    /// last receipt, or a day after it while the client runs. The default.
    case daily
    /// Daily, and also when the client shuts down: a server's process reports what it settled
    /// before it goes. The default of ``SimpleDataLogsClient/Configuration/server(ingestKey:endpoint:storageDirectory:)``.
    case dailyAndAtShutdown
}
