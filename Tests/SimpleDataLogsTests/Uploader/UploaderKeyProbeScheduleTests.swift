import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: key probes after a 401", .stuckTestLimit)
struct UploaderKeyProbeScheduleTests {
    typealias Schedule = KeyProbeSchedule<ManualClock.Instant>

    func at(_ seconds: Int64) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(seconds)) }

    @Test("a fresh schedule is not paused and may send at once")
    func fresh() {
        let schedule = Schedule()
        #expect(!schedule.isPaused && schedule.maySend(at: at(0)) && schedule.remainingPause(at: at(0)) == .zero)
    }

    @Test("the first 401 pauses for 1 minute and logs; later 401s probe every 10 minutes without logging")
    func probes() {
        var schedule = Schedule()
        let first = schedule.recordUnauthorized(at: at(5))
        #expect(first == .init(nextProbe: at(65), logsConfigurationError: true))
        #expect(schedule.isPaused && !schedule.maySend(at: at(64)) && schedule.maySend(at: at(65)))
        #expect(schedule.remainingPause(at: at(5)) == .seconds(60))
        let second = schedule.recordUnauthorized(at: at(65))
        #expect(second == .init(nextProbe: at(665), logsConfigurationError: false))
        let third = schedule.recordUnauthorized(at: at(670))
        #expect(third == .init(nextProbe: at(1_270), logsConfigurationError: false))
        #expect(schedule.consecutiveUnauthorized == 3)
    }

    @Test("a new key that goes live 30 s after it is made is picked up by the first probe")
    func newKey() {
        var schedule = Schedule()
        let decision = schedule.recordUnauthorized(at: at(0))
        let keyLive = at(30)
        #expect(decision.nextProbe > keyLive)
        schedule.recordAccepted()
        #expect(!schedule.isPaused)
    }

    @Test("a 202 resets: the next 401 starts again at 1 minute and logs again")
    func reset() {
        var schedule = Schedule()
        _ = schedule.recordUnauthorized(at: at(0))
        _ = schedule.recordUnauthorized(at: at(60))
        schedule.recordAccepted()
        #expect(!schedule.isPaused && schedule.consecutiveUnauthorized == 0 && schedule.maySend(at: at(61)))
        #expect(schedule.recordUnauthorized(at: at(100)) == .init(nextProbe: at(160), logsConfigurationError: true))
    }

    @Test("works with the real monotonic clock's instants too")
    func continuousClock() {
        var schedule = KeyProbeSchedule<ContinuousClock.Instant>()
        let now = ContinuousClock.now
        #expect(schedule.recordUnauthorized(at: now).nextProbe == now.advanced(by: .seconds(60)))
    }
}
