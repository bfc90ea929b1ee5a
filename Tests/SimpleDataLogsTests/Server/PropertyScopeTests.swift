import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// `withProperties(_:operation:)`: per-request properties for servers, task-local like
/// `withDeviceID`, merged under the event's own and over the defaults, at a real local ingest.
@Suite("Server: per-request properties", .stuckTestLimit, .skippedInFastLoop)
struct PropertyScopeTests {
    @Test("an event's own properties win over the scope's, the scope's over the defaults; inner scopes over outer; nothing outside", .tags(.sockets))
    func precedence() async throws {
        try await withDelivery { delivery in
            let client = delivery.client
            client.setDefaultProperties(["tenant": "default", "region": "eu", "app": "api"])
            await client.withProperties(["request_id": "r1", "tenant": "acme"]) {
                client.track("inside", properties: ["region": "us"])
                client.withProperties(["request_id": "r1.a", "step": "retry"]) {
                    client.track("nested")
                }
                await client.withDeviceID("device-7") {
                    _ = await client.track("waited", properties: [:], waitingUpTo: .seconds(5))
                }
            }
            client.track("outside")
            try await withTimeLimit(waitingFor: "a flush") { _ = await client.flush() }
            let events = delivery.ingest.receivedEvents
            #expect(events.map(\.name) == ["inside", "nested", "waited", "outside"])
            #expect(events[0].properties == ["request_id": "r1", "tenant": "acme", "region": "us", "app": "api"])
            #expect(events[1].properties == ["request_id": "r1.a", "tenant": "acme", "step": "retry", "region": "eu", "app": "api"])
            #expect(events[2].properties == ["request_id": "r1", "tenant": "acme", "region": "eu", "app": "api"], "the waiting track() too")
            #expect(events[2].deviceID == "device-7", "a device id scope inside a properties scope keeps both")
            #expect(events[3].properties == ["tenant": "default", "region": "eu", "app": "api"])
        }
    }

    @Test("200 concurrent requests, each with child tasks: every event carries its own request's id and tenant", .tags(.sockets))
    func concurrentRequests() async throws {
        try await withDelivery(adjust: { $0.batchSize = 100; $0.maxConcurrentRequests = 4 }) { delivery in
            let client = delivery.client
            await withTaskGroup(of: Void.self) { group in
                for request in 0..<200 {
                    group.addTask {
                        await client.withProperties(["request_id": .string("r\(request)"), "tenant": .string("t\(request % 7)")]) {
                            await withTaskGroup(of: Void.self) { children in
                                for step in 0..<3 {
                                    children.addTask { client.track("step", properties: ["request": .int(Int64(request)), "step": .int(Int64(step))]) }
                                }
                            }
                        }
                    }
                }
            }
            try await withTimeLimit(waitingFor: "600 events delivered") {
                while client.counters.delivered < 600 { _ = await client.flush() }
            }
            let events = delivery.ingest.receivedEvents
            #expect(events.count == 600)
            for event in events {
                guard case .int(let request)? = event.properties["request"] else { Issue.record("no request in \(event)"); continue }
                #expect(event.properties["request_id"] == .string("r\(request)") && event.properties["tenant"] == .string("t\(request % 7)"))
            }
        }
    }

    @Test("scoped properties are checked like the event's own: an over-long value is cut, a bad key dropped, the event kept")
    func validated() async throws {
        try await withTestClient { test in
            let long = String(repeating: "x", count: 10_000)
            test.client.withProperties(["note": .string(long), "": "empty key"]) {
                test.client.track("e")
            }
            let events = try await test.flushedEvents()
            #expect(events.count == 1)
            #expect(events[0].props[""] == nil)
            if case .string(let note)? = events[0].props["note"] { #expect(note.utf8.count < long.utf8.count) } else { Issue.record("no note") }
        }
    }
}
