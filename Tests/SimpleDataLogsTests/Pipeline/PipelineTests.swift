import Dispatch
import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("The pipeline: ordering, bounds, instances and threads", .stuckTestLimit, .skippedInFastLoop)
struct PipelineTests {
    @Test("the 5,000 backlog: with the writer held, 6,000 tracked gives exactly 1,000 skipped and one log line; writing resumes when the gate opens", .tags(.burst))
    func backlog() async throws {
        let gate = WriterGate(isOpen: false)
        try await withTestClient(gate: gate) { test in
            for index in 0..<6_000 { test.client.track("burst", properties: ["seq": .int(Int64(index))]) }
            let held = test.client.counters
            #expect(held.tracked == 6_000)
            #expect(held.skippedBacklog == 1_000)
            #expect(test.log.lines.filter { $0.level == .warning && $0.message.contains("waiting to be written") }.count == 1)
            #expect(try test.journaledEvents().isEmpty, "nothing written while the gate is closed")

            gate.open()
            let events = try await test.flushedEvents()
            #expect(events.count == 5_000)
            #expect(try events.map { try $0.requiredInt("seq") } == Array(0..<5_000), "the first 5,000, in order")
            // The writer caught up: new events are taken again.
            test.client.track("after")
            #expect(try await test.flushedEvents().count == 5_001)
            let counters = test.client.counters
            #expect(counters.skippedBacklog == 1_000)
            #expect(counters.isBalanced, "\(counters)")
            #expect(test.log.lines.filter { $0.level == .warning && $0.message.contains("waiting to be written") }.count == 1)
        }
    }

    @Test("two instances side by side never see each other's events")
    func twoInstances() async throws {
        try await withTestClient(key: "sdl_pub_first0000000000") { first in
            try await withTestClient(key: "sdl_sec_second000000000") { second in
                first.client.setDefaultProperties(["who": "first"])
                second.client.setDeviceID("second-device")
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { for index in 0..<500 { first.client.track("first", properties: ["i": .int(Int64(index))]) } }
                    group.addTask { for index in 0..<700 { second.client.track("second", properties: ["i": .int(Int64(index))]) } }
                }
                let firstEvents = try await first.flushedEvents()
                let secondEvents = try await second.flushedEvents()
                #expect(firstEvents.count == 500 && firstEvents.allSatisfy { $0.name == "first" && $0.props["who"] == "first" && $0.deviceID == nil })
                #expect(secondEvents.count == 700 && secondEvents.allSatisfy { $0.name == "second" && $0.props["who"] == nil && $0.deviceID == "second-device" })
                #expect(first.client.counters.isBalanced && second.client.counters.isBalanced)
            }
        }
    }

    @Test("calls from @MainActor, detached tasks and plain threads at once all arrive, once each", .tags(.burst))
    func callsFromEverywhere() async throws {
        try await withTestClient { test in
            let client = test.client
            let perSource = 1_000
            await withTaskGroup(of: Void.self) { group in
                group.addTask { @MainActor in
                    for index in 0..<perSource { client.track("main", properties: ["i": .int(Int64(index))]) }
                }
                for task in 0..<4 {
                    group.addTask {
                        await Task.detached {
                            for index in 0..<perSource / 4 { client.track("detached", properties: ["i": .int(Int64(task * 1_000 + index))]) }
                        }.value
                    }
                }
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        let finished = DispatchGroup()
                        for thread in 0..<4 {
                            finished.enter()
                            Thread {
                                for index in 0..<perSource / 4 { client.track("thread", properties: ["i": .int(Int64(thread * 1_000 + index))]) }
                                finished.leave()
                            }.start()
                        }
                        finished.notify(queue: .global()) { done.resume() }
                    }
                }
            }
            let events = try await test.flushedEvents()
            #expect(events.count == 3 * perSource)
            #expect(Set(events.map { $0.eventID }).count == events.count, "every id unique")
            for source in ["main", "detached", "thread"] {
                let indices = try events.filter { $0.name == source }.map { try $0.requiredInt("i") }
                #expect(Set(indices).count == perSource, "\(source): every call once")
            }
            #expect(test.client.counters.isBalanced)
        }
    }

    @Test("tracking reaches the journal while every thread of the cooperative pool is blocked", .tags(.poolSaturation, .burst))
    func poolSaturated() async throws {
        try await withTestClient { test throws in
            let client = test.client
            test.client.track("warm-up")
            await test.drain()
            let reached = try await whileCooperativePoolIsBlocked {
                for index in 0..<1_000 { client.track("while-saturated", properties: ["i": .int(Int64(index))]) }
                // Generous under a sanitizer, where the whole suite shares 2 cores with this test.
                return client.blockUntilJournaled(atLeast: 1_001, timeout: .seconds(20 * sanitizerSlack))
            }
            #expect(reached, "the journal advanced with no pool thread free")
            #expect(try await test.flushedEvents().count == 1_001)
        }
    }
}

@Suite("Before configure", .stuckTestLimit)
struct BeforeConfigureTests {
    @Test("calls before configure are kept in order and written once it runs")
    func heldUntilConfigure() async throws {
        try await withTestClient(configure: false) { test in
            test.client.setDeviceID("early-device")
            test.client.setDefaultProperties(["v": "1"])
            test.client.track("early")
            #expect(test.client.counters.pendingInMemory == 1)
            test.configure()
            let event = try #require(try await test.flushedEvents().first)
            #expect(event.deviceID == "early-device")
            #expect(event.props["v"] == "1")
        }
    }

    @Test("at most 1,000 events are held before configure; the oldest are dropped, counted, logged once")
    func preConfigureCap() async throws {
        try await withTestClient(configure: false) { test in
            for index in 0..<1_500 { test.client.track("early", properties: ["seq": .int(Int64(index))]) }
            #expect(test.client.counters.droppedBeforeConfigure == 500)
            #expect(test.log.lines(containing: "before configure").count == 1)
            test.configure()
            let events = try await test.flushedEvents()
            #expect(try events.map { try $0.requiredInt("seq") } == Array(500..<1_500))
            #expect(test.client.counters.isBalanced, "\(test.client.counters)")
        }
    }

    @Test("if configure never comes, nothing is written")
    func neverConfigured() async throws {
        await withTestClient(configure: false) { test in
            test.client.track("lost-in-memory")
            let result = await test.client.flush()
            #expect(result.remaining == 1)
            await shutDown(test.client)
            #expect(FileManager.default.fileExists(atPath: test.directory.path) == false)
        }
    }

    @Test("setEnabled(false) before configure: events are ignored and nothing reaches the journal")
    func disabledBeforeConfigure() async throws {
        try await withTestClient(configure: false) { test in
            test.client.track("before-opt-out")
            test.client.setEnabled(false)
            test.client.track("while-disabled")
            test.configure()
            let events = try await test.flushedEvents()
            #expect(events.isEmpty)
            let counters = test.client.counters
            #expect(counters.ignoredWhileDisabled == 1)
            #expect(counters.deletedByOptOut == 1)
            #expect(counters.isBalanced, "\(counters)")
        }
    }

    @Test("setEnabled(true) collects again, in order with track")
    func reEnabled() async throws {
        try await withTestClient { test in
            test.client.track("one")
            test.client.setEnabled(false)
            test.client.track("ignored")
            test.client.setEnabled(true)
            test.client.track("two")
            let events = try await test.flushedEvents()
            #expect(events.map { $0.name } == ["two"], "the opt-out deleted 'one'")
            #expect(test.client.counters.isBalanced)
        }
    }
}
