package import Dispatch

extension DispatchTime {
    /// The moment `duration` from now, for the few bounded blocking waits (a semaphore, a
    /// barrier) that take a `DispatchTime`. Saturates instead of trapping on huge durations;
    /// a negative one is now.
    package static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return seconds > 0 ? .distantFuture : .now() }
        let total = nanoseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !total.overflow else { return .distantFuture }
        return .now() + .nanoseconds(Int(clamping: max(0, total.partialValue)))
    }
}
