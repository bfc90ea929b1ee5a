import Foundation
import Testing
@testable import SimpleDataLogs

/// The uploader's input is a ``HandOffQueue`` (its wake-up contract is `HandOffQueueTests`'):
/// what the outbox posts comes out in order, all at once.
@Suite("Uploader: the outbox's queue changes on the uploader's input", .stuckTestLimit)
struct UploaderInputTests {
    static func batch(_ sequence: Int) -> StoredBatch {
        StoredBatch(id: UUID(), sequence: sequence, path: "r", eventCount: 1, byteCount: 100)
    }

    @Test("changes come out in order, every waiting one in one take; then nothing until the next post")
    func inOrder() {
        let input = HandOffQueue<UploaderInput>()
        let (first, second) = (Self.batch(1), Self.batch(2))
        input.push(.queue([.joined([first])], batchesFolder: "b"))
        input.push(.queue([.joined([second]), .left([first.id])], batchesFolder: "b"))
        let changes = input.takeAll().flatMap { item -> [BatchQueueChange] in
            if case .queue(let changes, _) = item { changes } else { [] }
        }
        #expect(changes == [.joined([first]), .joined([second]), .left([first.id])])
        #expect(input.takeAll().isEmpty)
    }
}
