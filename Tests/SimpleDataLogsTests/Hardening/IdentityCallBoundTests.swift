import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: identity calls are bounded too")
struct IdentityCallBoundTests {
    @Test("100,000 setDeviceID and setDefaultProperties calls in a row hold one item each; the event after them carries the last of each")
    func hotLoopOfCalls() async throws {
        let test = TestClient(configure: false)
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
        #expect(events.first?["device_id"] as? String == "device-99999")
        #expect(events.first?.props["round"] as? Int == 99_999)
        await test.tearDown()
    }
}
