import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: identity calls and activity reports are bounded too", .stuckTestLimit, .tags(.burst), .skippedInFastLoop)
struct IdentityCallBoundTests {
    @Test("100,000 setDeviceID and setDefaultProperties calls in a row hold one item each; the event after them carries the last of each")
    func hotLoopOfCalls() async throws {
        try await withTestClient(configure: false) { test in
            for index in 0..<100_000 {
                test.client.setDeviceID("device-\(index)")
                test.client.setDefaultProperties(["round": .int(Int64(index))])
            }
            #expect(test.client.intake.queuedItemCount <= 2 * 2, "coalesced, not 200,000 items")
            test.client.setEnabled(false)
            test.client.setEnabled(true)
            #expect(test.client.intake.queuedItemCount == 4, "opt-out and opt-in are never merged")
            test.client.track("after")
            test.configure()
            let events = try await test.flushedEvents()
            #expect(events.count == 1)
            #expect(events.first?.deviceID == "device-99999")
            #expect(events.first?.props["round"] == 99_999)
        }
    }

    @Test("100,000 input reports fold into one; a flood of foreground/background reports stops at the bound with one warning; events still get their state")
    func hotLoopOfActivity() async throws {
        try await withTestClient(configure: false) { test in
            for _ in 0..<100_000 { test.client.reportActivity(.userInput) }
            #expect(test.client.intake.queuedItemCount == 1, "folded into the newest input")
            for index in 0..<5_000 { test.client.reportActivity(index.isMultiple(of: 2) ? .foreground : .background) }
            #expect(test.client.intake.queuedItemCount == Intake.maxQueuedActivities, "the folded input counts as one")
            #expect(test.log.lines.filter { $0.level == .warning && $0.message.contains("activity reports") }.count == 1)
            test.client.reportActivity(.userInput)
            test.client.track("after")
            test.configure()
            let events = try await test.flushedEvents()
            #expect(events.count == 1)
            #expect(events.first?.appState == "active", "the input just before it counts")
        }
    }
}
