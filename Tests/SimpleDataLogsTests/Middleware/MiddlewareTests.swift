import Foundation
import SimpleDataLogsTesting
import Synchronization
import Testing
@testable import SimpleDataLogs

/// Event middleware through the public API: what arrives at a real local ingest, in what order,
/// and what the counters say about what a step dropped.
@Suite("Middleware: enrich, rewrite, scrub and drop before the journal", .stuckTestLimit, .skippedInFastLoop)
struct MiddlewareTests {
    /// Tracks `names` in order, flushes, and returns what the ingest received, in order.
    static func deliver(
        _ names: [(String, [String: PropertyValue])], middleware: [EventMiddleware],
        setUp: @Sendable (SimpleDataLogsClient) -> Void = { _ in }
    ) async throws -> (events: [ReceivedEvent], counters: DeliveryCounters) {
        try await withDelivery(adjust: { $0.middleware = middleware }) { delivery in
            setUp(delivery.client)
            for (name, properties) in names { delivery.client.track(name, properties: properties) }
            try await withTimeLimit(waitingFor: "a flush") { [client = delivery.client] in _ = await client.flush() }
            return (delivery.ingest.receivedEvents, delivery.client.counters)
        }
    }

    @Test("enrich adds properties under the event's own; scrub removes keys; steps run in order, each seeing the one before", .tags(.sockets))
    func enrichScrubOrder() async throws {
        let (events, counters) = try await Self.deliver(
            [("signed_up", ["email": "a@example.com", "plan": "pro"]), ("opened", ["build": "mine"])],
            middleware: [
                .enrich("build") { _ in ["build": "2026.12.1", "region": "eu"] },
                .scrub("no personal data", keys: ["email"]),
                EventMiddleware("after the others") { event in
                    // Sees the first step's property and not the scrubbed one.
                    let region = if case .string(let region)? = event.properties["region"] { region } else { "none" }
                    event.properties["saw"] = .string("\(region)/\(event.properties["email"] == nil)")
                    return .keep
                },
            ]
        )
        #expect(events.map(\.name) == ["signed_up", "opened"])
        #expect(events[0].properties == ["plan": "pro", "build": "2026.12.1", "region": "eu", "saw": "eu/true"])
        #expect(events[1].properties["build"] == "mine", "the event's own property wins over an enrichment")
        #expect(counters.isBalanced && counters.droppedByMiddleware == 0, "\(counters)")
    }

    @Test("a rewrite (name, device id) arrives as rewritten; a step that makes a name the SDK cannot send drops the event as invalid", .tags(.sockets))
    func rewrite() async throws {
        let (events, counters) = try await Self.deliver(
            [("Old Name", [:]), ("keep", [:]), ("bad", [:])],
            middleware: [EventMiddleware("rename") { event in
                if event.name == "Old Name" { event.name = "new_name"; event.deviceID = "hashed-device" }
                if event.name == "bad" { event.name = "" }
                return .keep
            }]
        )
        #expect(events.map(\.name) == ["new_name", "keep"])
        #expect(events[0].deviceID == "hashed-device")
        #expect(counters.invalid == 1 && counters.isBalanced, "\(counters)")
    }

    @Test("a dropped event is counted (in all and by step), never journaled nor sent, and the law balances")
    func dropIsCountedNeverJournaled() async throws {
        let steps: [EventMiddleware] = [
            .drop("no debug events") { $0.name.hasPrefix("debug_") },
            .drop("no test devices") { $0.deviceID == "test-device" },
        ]
        try await withTestClient(adjust: { $0.middleware = steps }) { test in
            test.client.track("debug_tap")
            test.client.track("purchase")
            test.client.track("purchase", properties: [:], deviceID: "test-device")
            test.client.track("debug_scroll")
            let journaled = try await test.flushedEvents()
            #expect(journaled.map(\.name) == ["purchase"], "dropped events never reach the journal")
            let counters = test.client.counters
            #expect(counters.droppedByMiddleware == 3)
            #expect(counters.droppedByStep == ["no debug events": 2, "no test devices": 1])
            #expect(counters.tracked == 4 && counters.isBalanced, "\(counters)")
        }
    }

    @Test("opt-out: events tracked while collection is off never reach a step; a drop after the opt-out is counted as any other")
    func optOutInterplay() async throws {
        let seen = Mutex<[String]>([])
        let steps: [EventMiddleware] = [EventMiddleware("watch") { event in
            seen.withLock { $0.append(event.name) }
            return event.name == "drop_me" ? .drop : .keep
        }]
        try await withTestClient(adjust: { $0.middleware = steps }) { test in
            test.client.track("before")
            test.client.setEnabled(false)
            test.client.track("while_off")
            test.client.setEnabled(true)
            test.client.track("drop_me")
            test.client.track("after")
            let journaled = try await test.flushedEvents()
            #expect(seen.withLock { $0 } == ["before", "drop_me", "after"])
            #expect(journaled.map(\.name) == ["after"], "the opt-out deleted what was before it")
            let counters = test.client.counters
            #expect(counters.ignoredWhileDisabled == 1 && counters.droppedByMiddleware == 1 && counters.deletedByOptOut == 1)
            #expect(counters.isBalanced, "\(counters)")
        }
    }

    @Test("steps run off the caller's thread, on the SDK's stages thread, never inside track()")
    func offTheCallersThread() async throws {
        let threads = Mutex<Set<ObjectIdentifier>>([])
        let steps: [EventMiddleware] = [EventMiddleware("where") { _ in
            threads.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) }
            return .keep
        }]
        try await withTestClient(adjust: { $0.middleware = steps }) { test in
            let caller = Thread.detachNewThreadAndWait { () -> ObjectIdentifier in
                for _ in 0..<100 { test.client.track("e") }
                return ObjectIdentifier(Thread.current)
            }
            _ = try await test.flushedEvents()
            let seen = threads.withLock { $0 }
            #expect(seen.count == 1 && !seen.contains(caller), "one thread, not the caller's")
        }
    }

    /// The step is the DocC article's sample (`EventsInDepthSnippets.swift`).
    @Test("the documented sampling step keeps a steady share of one event name, decided by event id, and leaves the others alone")
    func sampling() async throws {
        try await withTestClient(adjust: { $0.middleware = [.sample("scroll", keeping: 0.25)] }) { test in
            for _ in 0..<4_000 { test.client.track("scroll") }
            for _ in 0..<100 { test.client.track("purchase") }
            let journaled = try await test.flushedEvents()
            let kept = journaled.filter { $0.name == "scroll" }.count
            #expect((800...1_200).contains(kept), "kept \(kept) of 4,000 at 25 %")
            #expect(journaled.filter { $0.name == "purchase" }.count == 100)
            #expect(test.client.counters.droppedByStep["sample scroll"] == 4_000 - kept)
        }
    }
}

extension Thread {
    /// Runs `body` on a new thread and waits for its result (a caller thread of the test's own).
    static func detachNewThreadAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            result.withLock { $0 = body() }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
