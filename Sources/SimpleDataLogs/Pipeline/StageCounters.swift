/// The counters kept by the stages after the intake (the intake keeps its own, under its lock,
/// so `track()` takes one lock, not two).
final class StageCounters: Sendable {
    private let values = Locked(DeliveryCounters())

    /// Applies a change to the counters.
    func update(_ change: (inout DeliveryCounters) -> Void) {
        values.withLock { change(&$0) }
    }

    /// The stages' part of the counters.
    var snapshot: DeliveryCounters { values.withLock { $0 } }
}
