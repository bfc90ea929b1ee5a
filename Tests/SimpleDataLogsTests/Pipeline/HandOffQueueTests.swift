import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Pipeline: the hand-over queue between stages", .stuckTestLimit)
struct HandOffQueueTests {
    @Test("takeAll hands over everything waiting, oldest first, and an empty array once drained")
    func order() {
        let queue = HandOffQueue<Int>()
        for element in 1...3 { queue.push(element) }
        #expect(queue.takeAll() == [1, 2, 3])
        #expect(queue.takeAll().isEmpty)
        queue.push(4)
        #expect(queue.takeAll() == [4])
    }

    @Test("one wake-up per idle period: pushes while a wake-up is pending add none; draining re-arms it; finish ends the wake-ups")
    func wakeUps() async {
        let queue = HandOffQueue<Int>()
        queue.push(1)
        queue.push(2)
        var wakes = queue.wakeUps.makeAsyncIterator()
        #expect(await wakes.next() != nil)
        #expect(queue.takeAll() == [1, 2])
        #expect(queue.takeAll().isEmpty, "empty: the next push wakes again")
        queue.push(3)
        queue.finish()
        #expect(await wakes.next() != nil, "the push after draining woke the consumer, and it is delivered before the end")
        #expect(queue.takeAll() == [3])
        #expect(await wakes.next() == nil, "finished")
    }

    @Test("wake() wakes the consumer even while a push's wake-up is pending, and many wakes coalesce into one")
    func explicitWakes() async {
        let queue = HandOffQueue<Int>()
        queue.push(1)
        var wakes = queue.wakeUps.makeAsyncIterator()
        #expect(await wakes.next() != nil)
        // The consumer is busy with element 1 (a wake-up is still pending for pushes): a wake()
        // now must not be lost, or outcomes left beside the queue would wait for the next push.
        queue.wake()
        queue.wake()
        #expect(queue.takeAll() == [1])
        #expect(queue.takeAll().isEmpty)
        queue.finish()
        #expect(await wakes.next() != nil, "the wake() sent while busy is seen after")
        #expect(await wakes.next() == nil, "two wakes coalesced into one")
    }

    @Test("as an AsyncSequence: each element is everything waiting, oldest first; it suspends while nothing waits and ends after finish once drained")
    func sequence() async {
        let queue = HandOffQueue<Int>()
        queue.push(1)
        queue.push(2)
        var looks = queue.makeAsyncIterator()
        #expect(await looks.next() == [1, 2])
        // Nothing waits: the next look suspends until a push.
        let later = Task { [queue] in
            var looks = queue.makeAsyncIterator()
            return await looks.next()
        }
        queue.push(3)
        #expect(await later.value == [3])
        queue.push(4)
        queue.wake() // a wake-up with nothing behind it is no element
        queue.push(5)
        queue.finish()
        #expect(await looks.next() == [4, 5], "what was pushed before finish is handed over")
        #expect(await looks.next() == nil, "then it ends")
    }

    @Test("takeAll(where:) takes the matching items now and leaves the rest, in order, for the next look")
    func takeMatching() async {
        let queue = HandOffQueue<Int>()
        for element in 1...6 { queue.push(element) }
        #expect(queue.takeAll(where: { $0.isMultiple(of: 2) }) == [2, 4, 6])
        #expect(queue.takeAll(where: { $0 > 10 }).isEmpty)
        var looks = queue.makeAsyncIterator()
        #expect(await looks.next() == [1, 3, 5])
    }

    @Test("waitForItems returns at once when an item waits, else at the next push, at finish, or when its task is cancelled; it takes nothing, and the consumer's wake-up is still delivered")
    func waitForItems() async {
        let queue = HandOffQueue<Int>()
        queue.push(1)
        await queue.waitForItems()
        #expect(queue.takeAll() == [1], "it took nothing")
        #expect(queue.takeAll().isEmpty, "drained: the next push wakes the consumer again")

        // Suspended until a push from another task; the push's wake-up still reaches the
        // sequence's own consumer.
        var wakes = queue.wakeUps.makeAsyncIterator()
        #expect(await wakes.next() != nil, "the first push's wake-up")
        let waiting = Task { [queue] in await queue.waitForItems() }
        queue.push(2)
        await waiting.value
        #expect(await wakes.next() != nil, "the push woke the consumer as well")
        #expect(queue.takeAll() == [2])

        // Cancelled while nothing waits: it returns, and leaves no waiter behind.
        let cancelled = Task { [queue] in await queue.waitForItems() }
        cancelled.cancel()
        await cancelled.value

        // Finished: it returns, now and for every later call.
        let untilFinish = Task { [queue] in await queue.waitForItems() }
        queue.finish()
        await untilFinish.value
        await queue.waitForItems()
        #expect(queue.isFinished && queue.takeAll().isEmpty)
    }
}
