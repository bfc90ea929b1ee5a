public import Foundation
public import SimpleDataLogs

/// A wall clock that reads whatever time a test sets, for timestamps and back-dating rules.
public final class SettableWallClock: WallClock {
    private let current: Locked<Date>

    /// Creates the clock at `date` (by default 2026-12-02 10:00:00 UTC, a fixed, readable moment).
    public init(_ date: Date = Date(timeIntervalSince1970: 1_796_205_600)) {
        current = Locked(date)
    }

    /// The time the test set.
    public func now() -> Date { current.withLock { $0 } }

    /// Sets the time.
    /// - Parameter date: The new time; it may go backwards, as real wall clocks do.
    public func set(_ date: Date) { current.withLock { $0 = date } }

    /// Moves the time forward.
    /// - Parameter seconds: How far.
    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
