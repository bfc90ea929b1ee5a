import Foundation
import Testing
@testable import SimpleDataLogs

/// Issue 24, item 2: what the uploader did comes to the outbox as messages on one queue, and the
/// outbox tells the uploader nothing it caused itself (no echo), only a split's halves.
@Suite("Outbox: the uploader's outcomes as messages, with no echo", .stuckTestLimit)
struct DeliveryOutcomeTests {
    @Test("delivered, set aside, too large and vanished are carried out from the queue; nothing goes back to the uploader; a split answers with its halves")
    func outcomesWithoutEcho() async throws {
        try await withTestClient { test throws in
            for seq in 0..<250 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await test.drain()
            let journal = test.client.pipeline!.outbox
            let input = HandOffQueue<UploaderInput>()
            await journal.attach(uploader: input)
            let batches = await journal.sealedBatches
            try #require(batches.count == 5)
            // Batch 3's file deleted behind the SDK's back.
            try FileManager.default.removeItem(atPath: test.directory.path + "/areas/a0/batches/" + batches[3].fileName)
            // One `.delivery` message's outcomes, carried out as the loop carries them out.
            let outcomes: [DeliveryOutcome] = [
                .delivered(batches[0].id, rejected: 2), .setAside(batches[1].id), .tooLarge(batches[2].id), .vanished(batches[3].id),
            ]
            #expect(await journal.applyDeliveryOutcomes(outcomes) == 0)
            let counters = test.client.counters
            #expect(counters.delivered == 48 && counters.rejectedByIngest == 2 && counters.setAside == 50, "\(counters)")
            #expect(counters.droppedTooLarge == 50 && counters.lostFromDisk == 50 && counters.pendingOnDisk == 50, "\(counters)")
            #expect(counters.isBalanced, "\(counters)")
            #expect(input.takeAll().isEmpty, "no echo: the uploader caused these changes and knows them")
            #expect(await journal.sealedBatches.map(\.id) == [batches[4].id])

            // A split: the one answer that goes back, with the halves in the parent's place.
            #expect(await journal.applyDeliveryOutcomes([.split(batches[4].id)]) == 1)
            let answers = input.takeAll()
            try #require(answers.count == 1, "one message: \(answers)")
            guard case .splitEnded(let parent, let halves?) = answers[0] else {
                Issue.record("not a split's answer: \(answers[0])")
                return
            }
            #expect(parent == batches[4].id && halves.map(\.eventCount) == [25, 25])
            #expect(await journal.sealedBatches.map(\.id) == halves.map(\.id))
        }
    }
}
