import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Pipeline: the sessions-to-outbox chunk queue", .stuckTestLimit)
struct ChunkQueueTests {
    static func chunk(_ count: Int) -> [PipelineItem] {
        (0..<count).map { _ in .optOut }
    }

    @Test("chunks come out in order, each saying whether another is already waiting behind it")
    func order() {
        let queue = ChunkQueue()
        for count in 1...3 { queue.push(Self.chunk(count)) }
        var seen: [(Int, Bool)] = []
        while let (chunk, moreWaiting) = queue.pop() { seen.append((chunk.count, moreWaiting)) }
        #expect(seen.map(\.0) == [1, 2, 3] && seen.map(\.1) == [true, true, false])
        #expect(queue.pop() == nil)
    }

    @Test("one wake-up per idle period: pushes while a wake-up is pending add none; emptying the queue re-arms it; finish ends the wake-ups")
    func wakeUps() async {
        let queue = ChunkQueue()
        queue.push(Self.chunk(1))
        queue.push(Self.chunk(1))
        var wakes = queue.wakeUps.makeAsyncIterator()
        #expect(await wakes.next() != nil)
        _ = queue.pop()
        _ = queue.pop()
        #expect(queue.pop() == nil, "empty: the next push wakes again")
        queue.push(Self.chunk(2))
        queue.finish()
        #expect(await wakes.next() != nil, "the push after emptying woke the consumer, and it is delivered before the end")
        #expect(queue.pop()?.chunk.count == 2)
        #expect(await wakes.next() == nil, "finished")
    }
}
