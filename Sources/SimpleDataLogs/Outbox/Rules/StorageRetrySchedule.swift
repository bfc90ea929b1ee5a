/// When the outbox tries its storage folder again while it runs in memory: pure rules, tested
/// without files or clocks (`StorageRetryScheduleTests`).
///
/// A folder that could not be made or locked at `configure` (a full disk, a path blocked by a
/// file, every area held) or that was deleted under the client is tried again after 1 s, then 2,
/// 4, … doubling up to once a minute, on the client's clock; and at every `flush()` and at
/// `shutdown()`, whatever the schedule says. A minute bounds both what a stuck folder costs (a
/// few system calls a minute) and how long events wait in memory once it is free. Until 2026-12
/// a client that started without its folder stayed memory-only for its whole life.
struct StorageRetrySchedule: Sendable, Equatable {
    /// The first wait, after the try that failed first.
    static let firstDelay: Duration = .seconds(1)
    /// The longest wait between two tries.
    static let longestDelay: Duration = .seconds(60)

    /// Tries that failed in a row.
    private(set) var failures = 0

    /// A try failed.
    /// - Returns: How long to wait before the next one.
    mutating func failed() -> Duration {
        failures += 1
        return Self.delay(afterFailures: failures)
    }

    /// A try took the folder: the next episode starts from ``firstDelay`` again.
    mutating func succeeded() {
        failures = 0
    }

    /// The wait after `failures` failed tries in a row: 1 s doubling, at most ``longestDelay``.
    static func delay(afterFailures failures: Int) -> Duration {
        // Capped before shifting, so a client memory-only for years never overflows.
        let doublings = min(max(failures - 1, 0), 16)
        return min(firstDelay * (1 << doublings), longestDelay)
    }
}
