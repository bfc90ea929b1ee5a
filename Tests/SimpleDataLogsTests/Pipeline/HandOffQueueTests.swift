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
}
