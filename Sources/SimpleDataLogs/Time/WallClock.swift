public import Foundation

/// The source of event timestamps: wall-clock time, which can jump, kept apart from the
/// monotonic `Clock` that drives timers and backoff.
///
/// The SDK reads it inside `track()`, so an implementation must be cheap and must not block.
/// `SimpleDataLogsTesting` ships `SettableWallClock` for tests.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    /// Creates the clock.
    public init() {}

    /// The current time, from `Date()`.
    public func now() -> Date { Date() }
}

extension WallClock {
    /// The current time in whole milliseconds since the Unix epoch, as the wire format wants it.
    package var nowMilliseconds: Int64 { now().millisecondsSince1970 }
}

extension Date {
    /// Whole milliseconds since the Unix epoch, rounded down; clamped so that no date traps.
    var millisecondsSince1970: Int64 {
        let milliseconds = (timeIntervalSince1970 * 1_000).rounded(.down)
        guard milliseconds.isFinite else { return 0 }
        return Int64(max(min(milliseconds, 9.0e15), -9.0e15))
    }
}
