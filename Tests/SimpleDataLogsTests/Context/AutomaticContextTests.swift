import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Automatic context: facts about the app and the device on every event, when asked for")
struct AutomaticContextTests {
    static let facts = ContextFacts(
        appVersion: "2.3.1", appBuild: "412", osName: "iOS", osVersion: "17.4.1",
        deviceModel: "iPhone15,2", locale: "de_CH", buildKind: .testflight
    )
    static let expected: [String: PropertyValue] = [
        "app_version": "2.3.1", "app_build": "412", "os_name": "iOS", "os_version": "17.4.1",
        "device_model": "iPhone15,2", "locale": "de_CH", "build_kind": "testflight",
    ]

    @Test("the rule: each option adds its properties and no other; a missing, blank or over-long fact is left out")
    func rule() {
        #expect(Self.facts.properties(for: []).isEmpty)
        #expect(Self.facts.properties(for: .all) == Self.expected)
        #expect(Self.facts.properties(for: .appVersion) == ["app_version": "2.3.1", "app_build": "412"])
        #expect(Self.facts.properties(for: .operatingSystem) == ["os_name": "iOS", "os_version": "17.4.1"])
        #expect(Self.facts.properties(for: .deviceModel) == ["device_model": "iPhone15,2"])
        #expect(Self.facts.properties(for: .locale) == ["locale": "de_CH"])
        #expect(Self.facts.properties(for: .buildKind) == ["build_kind": "testflight"])
        let sparse = ContextFacts(
            appVersion: " 2.3.1\n", appBuild: "  ", osName: "Linux", osVersion: "",
            deviceModel: String(repeating: "x", count: EventLimits.maxStringValueBytes + 1), locale: nil
        )
        #expect(sparse.properties(for: .all) == ["app_version": "2.3.1", "os_name": "Linux"])
    }

    @Test("build_kind: a debug build is debug anywhere; else a sandbox receipt is TestFlight; else release")
    func buildKind() {
        #expect(BuildKind.of(isDebugBuild: true, hasSandboxReceipt: true) == .debug)
        #expect(BuildKind.of(isDebugBuild: true, hasSandboxReceipt: false) == .debug)
        #expect(BuildKind.of(isDebugBuild: false, hasSandboxReceipt: true) == .testflight)
        #expect(BuildKind.of(isDebugBuild: false, hasSandboxReceipt: false) == .release)
    }

    @Test("the system's facts on Linux: the User-Agent's OS, no app version without an Info.plist, this build's kind")
    func systemFactsOnLinux() {
        let facts = ContextSource.system.read()
        let system = UploadRequestBuilder.currentOperatingSystem()
        #expect(facts.osName == system.name && facts.osVersion == system.version)
        #expect(facts.appVersion == nil && facts.appBuild == nil, "a test runner has no Info.plist")
        #expect(facts.locale == Locale.current.identifier)
        #if DEBUG
        #expect(facts.buildKind == .debug)
        #else
        #expect(facts.buildKind == .release)
        #endif
    }

    @Test("a replay (the intake log) carries no context: it describes this run, maybe another build; the live events get it back after")
    func replayHasNone() {
        var state = IdentityState()
        state.context = ["app_version": "2.0"]
        var problems: [EventValidator.Problem] = []
        state.beginReplay()
        var replayed = Event.live(name: "e", id: UUID(), timestamp: 1, properties: [:])
        state.apply(to: &replayed, problems: &problems)
        #expect(replayed.properties.isEmpty)
        state.endReplay()
        var live = Event.live(name: "e", id: UUID(), timestamp: 1, properties: [:])
        state.apply(to: &live, problems: &problems)
        #expect(live.properties == ["app_version": "2.0"])
    }

    @Test("through a client to a local ingest: every event carries the injected facts, read once; its own property and a default property win; reset() keeps them; off by default", .tags(.sockets))
    func delivered() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let reads = Locked(0)
        var tuning = ClientTuning()
        tuning.contextSource = ContextSource {
            reads.withLock { $0 += 1 }
            return Self.facts
        }
        await withTestClient(tuning: tuning, endpoint: ingest.endpoint, adjust: { $0.automaticContext = .all }) { test in
            test.client.track("plain")
            test.client.track("own", properties: ["app_version": "9.9", "locale": "fr_FR"])
            test.client.setDefaultProperties(["app_version": "1.1.0"])
            test.client.track("defaulted")
            test.client.reset()
            for seq in 0..<100 { test.client.track("after_reset", properties: ["seq": .int(Int64(seq))]) }
            await test.client.flush()
            let events = Dictionary(grouping: ingest.receivedEvents, by: \.name)
            #expect(events["plain"]?.first?.properties == Self.expected)
            var own = Self.expected
            own["app_version"] = "9.9"
            own["locale"] = "fr_FR"
            #expect(events["own"]?.first?.properties == own)
            var defaulted = Self.expected
            defaulted["app_version"] = "1.1.0"
            #expect(events["defaulted"]?.first?.properties == defaulted)
            #expect(events["after_reset"]?.count == 100)
            #expect(events["after_reset"]?.allSatisfy { $0.properties["device_model"] == "iPhone15,2" } == true)
            #expect(reads.withLock { $0 } == 1, "read once per client, not per event")
        }
        await withTestClient(tuning: tuning, endpoint: ingest.endpoint) { test in
            test.client.track("without")
            await test.client.flush()
            #expect(ingest.receivedEvents.first { $0.name == "without" }?.properties.isEmpty == true)
        }
    }
}
