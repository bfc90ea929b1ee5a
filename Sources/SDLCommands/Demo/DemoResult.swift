package import SimpleDataLogs
package import SimpleDataLogsTesting

/// What `sdl demo` found at the end: every event it tracked against what the ingest counted.
package struct DemoResult: Sendable {
    /// Events the demo tracked (each carries a `seq` property, 0 to `tracked - 1`).
    package var tracked = 0
    /// `seq`s the ingest never counted.
    package var missing: [Int] = []
    /// `seq`s the ingest counted, or was sent, more than once.
    package var doubled: [Int] = []
    /// The client's counters after shutdown.
    package var counters = DeliveryCounters()
    /// The ingest's counters.
    package var ingest = LocalIngest.Summary()
    /// Why the demo stopped early (a port it could not bind, a step that timed out), if it did.
    package var failure: String?

    /// Whether every event arrived exactly once and the counters say the same.
    package var succeeded: Bool {
        failure == nil && tracked > 0 && missing.isEmpty && doubled.isEmpty
            && counters.delivered == counters.tracked && counters.pending == 0 && counters.skippedBacklog == 0 && counters.isBalanced
    }
}
