import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// `timed(_:properties:operation:)`: one event when the operation ends, however it ends, with the
/// duration on the client's clock (a manual clock here, moved by the operation itself).
@Suite("API: timed events", .stuckTestLimit, .skippedInFastLoop)
struct TimedEventTests {
    struct Refused: Error {}

    @Test("completed: the event carries the duration on the client's clock and the operation's result comes back")
    func completed() async throws {
        try await withTestClient { test in
            let value = await test.client.timed("report_generated", properties: ["kind": "monthly"]) {
                test.clock.advance(by: .milliseconds(1_250))
                await Task.yield()
                return 42
            }
            #expect(value == 42)
            let events = try await test.flushedEvents()
            #expect(events.map(\.name) == ["report_generated"])
            #expect(events[0].props == ["kind": "monthly", "duration_ms": 1_250, "outcome": "completed"])
        }
    }

    @Test("failed: tracked with the error's type (never its message), then the error is rethrown")
    func failed() async throws {
        try await withTestClient { test in
            await #expect(throws: Refused.self) {
                try await test.client.timed("upload") {
                    test.clock.advance(by: .milliseconds(30))
                    await Task.yield()
                    throw Refused()
                }
            }
            #expect(throws: Refused.self) {
                try test.client.timed("parse") { () throws -> Int in throw Refused() }
            }
            let events = try await test.flushedEvents()
            #expect(events.map(\.name) == ["upload", "parse"])
            #expect(events[0].props == ["duration_ms": 30, "outcome": "failed", "error_type": "Refused"])
            #expect(events[1].props == ["duration_ms": 0, "outcome": "failed", "error_type": "Refused"])
        }
    }

    @Test("at a real local ingest: one event per timed operation, with its own id, its duration and outcome, in order with the others", .tags(.sockets))
    func atTheIngest() async throws {
        try await withDelivery { delivery in
            let client = delivery.client
            client.track("before")
            let answer = await client.timed("lookup", properties: ["table": "orders"]) {
                await Task.yield()
                return "found"
            }
            #expect(answer == "found")
            _ = try? client.timed("parse") { () throws -> Int in throw Refused() }
            client.track("after")
            try await withTimeLimit(waitingFor: "a flush") { _ = await client.flush() }
            let events = delivery.ingest.receivedEvents
            #expect(events.map(\.name) == ["before", "lookup", "parse", "after"])
            #expect(Set(events.map(\.eventID)).count == 4)
            #expect(events[1].properties["outcome"] == "completed" && events[1].properties["table"] == "orders")
            if case .int(let milliseconds)? = events[1].properties["duration_ms"] { #expect(milliseconds >= 0) } else { Issue.record("no duration_ms") }
            #expect(events[2].properties["outcome"] == "failed" && events[2].properties["error_type"] == "Refused")
        }
    }

    @Test("cancelled: a cancelled task's operation is tracked as cancelled, nothing dangles")
    func cancelled() async throws {
        try await withTestClient { test in
            let started = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                try await test.client.timed("search") {
                    started.continuation.yield()
                    try await test.clock.sleep(for: .seconds(60))
                }
            }
            var iterator = started.stream.makeAsyncIterator()
            _ = await iterator.next()
            test.clock.advance(by: .milliseconds(400))
            task.cancel()
            _ = await task.result
            let events = try await test.flushedEvents()
            #expect(events.map(\.name) == ["search"])
            #expect(events[0].props["outcome"] == "cancelled")
        }
    }
}
