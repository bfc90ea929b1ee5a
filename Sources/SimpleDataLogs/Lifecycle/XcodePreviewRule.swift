/// What `configure` does inside an Xcode preview: nothing leaves the process and nothing is
/// written. Decided here from the environment alone, so Linux compiles and tests the rule.
///
/// Xcode runs a preview's code (the app's, with its real key) in a process of its own with
/// `XCODE_RUNNING_FOR_PREVIEWS=1`, and starts it again on every edit. A client configured there
/// as usual would send the preview's made-up events to the project's real ingest, and would
/// journal them into an outbox folder on every restart, where a run of the app sharing that
/// folder would find and send them. So in a preview:
/// - the outbox is memory only, whatever `storageDirectory` or `SDL_STORAGE_DIR` says (no
///   folder is made, nothing is read or adopted, no crash handler is installed);
/// - the uploader does not start, so no transport is ever called, the app's own included;
/// - `configure` logs one info line saying so (``line(ingestKey:)``), and the client logs
///   nothing after it: every other line would describe a choice made here on purpose (an outbox
///   in memory, nothing delivered), and a preview restarts too often for noise.
///
/// `track` and the other calls work as usual (validated, stamped, counted), so a view behaves in
/// its preview as in the app; the events stay in memory, bounded by the limits, and go with the
/// process.
package enum XcodePreviewRule {
    /// The variable Xcode sets in a preview's process.
    package static let environmentVariable = "XCODE_RUNNING_FOR_PREVIEWS"

    /// Whether the process is an Xcode preview: the variable is `1`, as Xcode sets it.
    /// - Parameter environment: The process's environment (the client's, injectable in tests).
    /// - Returns: `true` in a preview.
    package static func applies(to environment: [String: String]) -> Bool {
        environment[environmentVariable] == "1"
    }

    /// The tuning of a client configured in a preview: the given one, with the uploader off.
    /// - Parameter tuning: The client's tuning.
    /// - Returns: The same tuning, never sending.
    static func tuning(from tuning: ClientTuning) -> ClientTuning {
        var tuning = tuning
        tuning.startsUploader = false
        return tuning
    }

    /// The one line `configure` logs in a preview.
    /// - Parameter ingestKey: The configured key, shown redacted.
    /// - Returns: The line.
    static func line(ingestKey: String) -> String {
        "Configured in an Xcode preview (\(environmentVariable)=1) with key \(IngestKey.redacted(ingestKey)): "
            + "events are kept in memory and never sent, and nothing is written to disk. Run the app to send."
    }
}
