import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Concurrency: the one timer helper", .stuckTestLimit)
struct MessageTimerTests {
    @Test("a timer posts its message after its delay on the injected clock, and the firing is current once")
    func fires() async throws {
        let clock = ManualClock()
        let posted = HandOffQueue<Int>()
        let timer = MessageTimer<Int>(clock: clock) { posted.push($0) }
        let generation = timer.start(after: .seconds(5)) { $0 }
        #expect(timer.isPending)
        try #require(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(4))
        #expect(posted.takeAll().isEmpty, "not before its delay")
        clock.advance(by: .seconds(1))
        var looks = posted.makeAsyncIterator()
        #expect(await looks.next() == [generation])
        #expect(timer.fired(generation), "the current firing")
        #expect(!timer.fired(generation), "acted on once")
        #expect(!timer.isPending)
    }

    @Test("starting again replaces the pending firing; a cancel makes a firing already posted stale")
    func replacedAndCancelled() async throws {
        let clock = ManualClock()
        let posted = HandOffQueue<Int>()
        let timer = MessageTimer<Int>(clock: clock) { posted.push($0) }
        let first = timer.start(after: .seconds(5)) { $0 }
        try #require(await clock.waitForSleepers(count: 1))
        let second = timer.start(after: .seconds(10)) { $0 }
        #expect(!timer.fired(first), "replaced: stale")
        try #require(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(10))
        var looks = posted.makeAsyncIterator()
        #expect(await looks.next() == [second], "only the replacing start posts")
        timer.cancel()
        #expect(!timer.fired(second), "cancelled after it was posted: stale")
        #expect(clock.sleeperCount == 0)
    }
}
