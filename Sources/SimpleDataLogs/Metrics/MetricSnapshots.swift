/// The metric snapshots of one subscriber, from ``SimpleDataLogsClient/metricSnapshots(every:)``:
/// the current ``MetricSnapshot`` at once, then one at each interval in which something changed,
/// and the final one when the client shuts down, after which the sequence ends.
///
/// It holds only the newest snapshot: a reader that falls behind finds the latest when it reads
/// again, never a queue of stale ones (how many it missed is ``supersededCount``). Iterate it
/// from one task; stopping (leaving the loop, or cancelling the task) ends its polling.
public struct MetricSnapshots: AsyncSequence, Sendable {
    /// The snapshots.
    public typealias Element = MetricSnapshot

    let stream: AsyncStream<MetricSnapshot>
    let superseded: Locked<Int>

    /// How many snapshots were replaced by a newer one before this subscriber read them. Nothing
    /// is lost by it: every counter in a later snapshot includes what the replaced one showed.
    public var supersededCount: Int { superseded.withLock { $0 } }

    /// Iterates over the snapshots.
    public func makeAsyncIterator() -> AsyncStream<MetricSnapshot>.Iterator { stream.makeAsyncIterator() }
}
