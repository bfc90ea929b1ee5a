/// Races an operation against a time limit on a given clock: the one helper for every "this, but
/// no longer than that" in the package (the uploader's request deadline, the shutdown's and the
/// background send's time limits, `track(_:waitingUpTo:)`, the CLI's waits).
///
/// Both run as children of a task group, so cancelling the caller cancels both. The operation's
/// result wins whenever it arrives first; when the limit passes first, the operation is
/// cancelled and its result (if it still makes one) is dropped unless `keepsLateResult` asks for
/// it. A sleep cut short by cancellation is not a deadline: the helper then waits for the
/// operation, which sees the same cancellation and decides what it returns.
package enum Deadline {
    private enum Arrival<T: Sendable>: Sendable {
        case finished(T)
        case limitPassed
        case sleepCancelled
    }

    /// Runs `operation` until it returns or `limit` passes on `clock`.
    /// - Parameters:
    ///   - limit: How long the operation may take.
    ///   - clock: The clock the limit is measured on (the client's injected clock in the SDK).
    ///   - keepsLateResult: Whether a result the cancelled operation still returns after the
    ///     limit passed counts (for an operation whose effect happened: an event already taken).
    ///   - operation: The work; it should return soon after it is cancelled.
    /// - Returns: The operation's result, or nil when the limit passed first.
    package static func run<T: Sendable, C: Clock>(
        _ limit: Duration, on clock: C, keepsLateResult: Bool = false, _ operation: @escaping @Sendable () async -> T
    ) async -> T? where C.Duration == Duration {
        await withTaskGroup(of: Arrival<T>.self) { group in
            group.addTask { .finished(await operation()) }
            group.addTask {
                do { try await clock.sleep(for: limit) } catch { return .sleepCancelled }
                return .limitPassed
            }
            var outcome: T?
            var limitPassed = false
            while let arrival = await group.next() {
                switch arrival {
                case .finished(let value):
                    if !limitPassed || keepsLateResult { outcome = value }
                    group.cancelAll()
                    return outcome
                case .limitPassed:
                    limitPassed = true
                    group.cancelAll()
                    if !keepsLateResult { return nil }
                case .sleepCancelled:
                    continue
                }
            }
            return outcome
        }
    }
}
