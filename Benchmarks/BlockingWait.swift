import SimpleDataLogs

extension SimpleDataLogsClient {
    /// `blockUntilJournaled` from a benchmark's asynchronous code: the call is `noasync` (it blocks
    /// the calling thread), and the benchmarks measure with it on purpose, one client at a time.
    func blockBenchmarkThreadUntilJournaled(atLeast count: Int, timeout: Duration) -> Bool {
        blockUntilJournaled(atLeast: count, timeout: timeout)
    }
}
