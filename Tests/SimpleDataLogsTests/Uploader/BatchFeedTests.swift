import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: the outbox's feed of batches", .stuckTestLimit)
struct BatchFeedTests {
    static func batch(_ sequence: Int) -> StoredBatch {
        StoredBatch(id: UUID(), sequence: sequence, path: "r", eventCount: 1, byteCount: 100)
    }

    @Test("changes come out in order; the first post after a take wakes the uploader once, later posts do not until the next take")
    func wakeUps() {
        let wakes = Locked(0)
        let feed = BatchFeed { wakes.withLock { $0 += 1 } }
        let (first, second) = (Self.batch(1), Self.batch(2))
        feed.post([.joined([first])])
        feed.post([.joined([second]), .left([first.id])])
        feed.post([])
        #expect(wakes.withLock { $0 } == 1)
        #expect(feed.take() == [.joined([first]), .joined([second]), .left([first.id])])
        #expect(feed.take().isEmpty)
        feed.post([.left([second.id])])
        #expect(wakes.withLock { $0 } == 2, "taken: the next post wakes again")
    }
}
