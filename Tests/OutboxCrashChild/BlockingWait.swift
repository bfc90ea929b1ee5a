import SimpleDataLogs

extension SimpleDataLogsClient {
    /// `blockUntilJournaled` from the child's top-level code: the child's main thread is its own
    /// to block (the call is `noasync`, and top-level code is an asynchronous context).
    func blockMainThreadUntilJournaled(atLeast count: Int, timeout: Duration) -> Bool {
        blockUntilJournaled(atLeast: count, timeout: timeout)
    }
}
