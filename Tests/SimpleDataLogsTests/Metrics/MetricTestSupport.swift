import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

/// One tick of a metric snapshot sequence's polling, on a manual clock that nothing else sleeps
/// on: waits until the `pollers` sleep, moves the clock by `interval`, and waits until they sleep
/// again, which they do only after their tick has yielded (or not). Bounded: the clock's waits
/// give up after a minute of real time and the test fails.
func tick(_ clock: ManualClock, by interval: Duration, pollers: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try #require(await clock.waitForSleepers(count: pollers), "the polling task sleeps before the tick", sourceLocation: sourceLocation)
    clock.advance(by: interval)
    try #require(await clock.waitForSleepers(count: pollers), "the polling task sleeps again after the tick", sourceLocation: sourceLocation)
}

/// Every element left in `snapshots` until it ends, waited for at most ``testWaitLimit``.
func remainingElements(of snapshots: MetricSnapshots, waitingFor what: String) async throws -> [MetricSnapshot] {
    try await withTimeLimit(waitingFor: what) {
        var all: [MetricSnapshot] = []
        for await snapshot in snapshots { all.append(snapshot) }
        return all
    }
}
