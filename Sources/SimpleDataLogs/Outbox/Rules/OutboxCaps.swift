/// The outbox's limits: at most 10,000 events, 10 MB or 500 batch files, counting the journal,
/// sealed and set-aside files of every area. Pure: given what is stored, it says how many of the
/// oldest evictable batches must go.
package struct OutboxCaps: Sendable, Equatable {
    package var maxEvents = 10_000
    package var maxBytes = 10_000_000
    package var maxFiles = 500

    /// The product's caps.
    package init() {}

    /// Smaller caps, for tests that reach them.
    package init(maxEvents: Int, maxBytes: Int, maxFiles: Int) {
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
        self.maxFiles = maxFiles
    }

    /// What is stored, in the units the caps count.
    struct Usage: Sendable, Equatable {
        var events = 0
        var bytes = 0
        var files = 0
    }

    /// Whether `usage` is past any cap.
    func isExceeded(by usage: Usage) -> Bool {
        usage.events > maxEvents || usage.bytes > maxBytes || usage.files > maxFiles
    }

    /// Whether `usage` is back to at most 90 % of every cap: the end of an eviction episode.
    /// The gap keeps an outbox that hovers at its cap (the ingest down, events still coming)
    /// in one episode instead of starting a new one at every batch.
    func isComfortablyUnder(_ usage: Usage) -> Bool {
        usage.events * 10 <= maxEvents * 9 && usage.bytes * 10 <= maxBytes * 9 && usage.files * 10 <= maxFiles * 9
    }

    /// How many of `evictable` (oldest first) to drop so that `usage` fits. The open journal is
    /// never evictable; when evicting everything evictable is not enough, it evicts all of them.
    /// Reads `evictable` only as far as it must (it may be long: a server's outbox holds
    /// thousands of batches).
    func evictionCount(usage: Usage, evictable: some Sequence<Usage>) -> Int {
        var usage = usage
        var count = 0
        for batch in evictable {
            guard isExceeded(by: usage) else { break }
            usage.events -= batch.events
            usage.bytes -= batch.bytes
            usage.files -= batch.files
            count += 1
        }
        return count
    }
}
