/// The rule of one subscriber's metric snapshots, as a value: the first snapshot always goes;
/// after it, one goes only if it differs from the last one that went; once finished, none.
///
/// Kept apart from the polling task so the rule is tested without a clock or a task.
struct SnapshotChanges: Sendable {
    /// The last snapshot handed to the subscriber.
    private(set) var lastYielded: MetricSnapshot?
    /// Whether the final snapshot was decided; nothing goes after it.
    private(set) var isFinished = false

    /// The snapshot to yield when the subscriber subscribes: the current one, always.
    mutating func subscribed(_ current: MetricSnapshot) -> MetricSnapshot {
        lastYielded = current
        return current
    }

    /// At a tick: the snapshot to yield, or nil when nothing changed since the last one (or the
    /// sequence is finished).
    mutating func tick(_ current: MetricSnapshot) -> MetricSnapshot? {
        guard !isFinished, current != lastYielded else { return nil }
        lastYielded = current
        return current
    }

    /// When the client has shut down (or the subscriber left): the final snapshot to yield if it
    /// changed, once; later calls yield nothing.
    mutating func finish(_ current: MetricSnapshot) -> MetricSnapshot? {
        defer { isFinished = true }
        return tick(current)
    }
}
