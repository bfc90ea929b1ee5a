import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// The one race of an operation against a time limit, on a clock the test moves.
@Suite("Concurrency: Deadline", .stuckTestLimit)
struct DeadlineTests {
    /// Suspends until cancelled, then returns `value`.
    static func untilCancelled<T: Sendable>(returning value: T) async -> T {
        let clock = ManualClock()
        try? await clock.sleep(for: .seconds(1_000_000))
        return value
    }

    @Test("the operation's result when it comes first; the limit's sleeper is cancelled")
    func operationWins() async {
        let clock = ManualClock()
        let result = await Deadline.run(.seconds(5), on: clock) { 42 }
        #expect(result == 42)
        #expect(clock.sleeperCount == 0)
    }

    @Test("nil when the limit passes first, and the operation is cancelled (and awaited)")
    func limitWins() async {
        let clock = ManualClock()
        let cancelled = Locked(false)
        async let result = Deadline.run(.seconds(5), on: clock) { () -> Int in
            let value = await Self.untilCancelled(returning: 7)
            cancelled.withLock { $0 = Task.isCancelled }
            return value
        }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1, "not yet")
        clock.advance(by: .seconds(1))
        #expect(await result == nil)
        #expect(cancelled.withLock { $0 }, "the operation was cancelled before the helper returned")
    }

    @Test("with keepsLateResult, what the cancelled operation still returns counts")
    func lateResultKept() async {
        let clock = ManualClock()
        async let result = Deadline.run(.seconds(1), on: clock, keepsLateResult: true) { await Self.untilCancelled(returning: "taken") }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(1))
        #expect(await result == "taken")
    }

    @Test("a caller's cancellation is not a deadline: the operation decides what comes back")
    func callerCancelled() async {
        let clock = ManualClock()
        let task = Task { await Deadline.run(.seconds(60), on: clock) { await Self.untilCancelled(returning: "cancelled") } }
        #expect(await clock.waitForSleepers(count: 1))
        task.cancel()
        #expect(await task.value == "cancelled")
    }
}
