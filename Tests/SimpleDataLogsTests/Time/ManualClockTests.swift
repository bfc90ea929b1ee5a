import SimpleDataLogsTesting
import Testing

@Suite("ManualClock: the clock every timer test drives", .stuckTestLimit)
struct ManualClockTests {
    @Test("a sleeper wakes when the clock reaches its deadline, not before")
    func sleeperWakesAtDeadline() async throws {
        let clock = ManualClock()
        let sleeping = Task { try await clock.sleep(for: .seconds(10)) }
        try #require(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1, "one second early: still asleep")
        clock.advance(by: .seconds(1))
        try await sleeping.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == ManualClock.Instant(offset: .seconds(10)))
    }

    @Test("a cancelled sleeper throws CancellationError and leaves the clock")
    func cancelledSleeper() async throws {
        let clock = ManualClock()
        let sleeping = Task { try await clock.sleep(for: .seconds(10)) }
        try #require(await clock.waitForSleepers(count: 1))
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("waiting for sleepers that never come gives up at its wall-clock timeout, so a broken test fails instead of hanging")
    func waitForSleepersTimesOut() async {
        let clock = ManualClock()
        #expect(await clock.waitForSleepers(count: 1, timeout: .milliseconds(20)) == false)
        let sleeping = Task { try? await clock.sleep(for: .seconds(1)) }
        #expect(await clock.waitForSleepers(count: 1, timeout: .seconds(60)))
        #expect(await clock.waitForSleepers(count: 2, timeout: .milliseconds(20)) == false, "one sleeper is not two")
        clock.advance(by: .seconds(1))
        await sleeping.value
    }
}
