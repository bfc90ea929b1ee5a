/// What one `flush()` achieved.
public struct FlushResult: Sendable, Hashable {
    /// Events delivered (202) during the flush.
    public var delivered: Int
    /// Events still waiting, in memory or on disk, when the flush returned.
    public var remaining: Int

    /// Creates a result.
    public init(delivered: Int, remaining: Int) {
        self.delivered = delivered
        self.remaining = remaining
    }
}
