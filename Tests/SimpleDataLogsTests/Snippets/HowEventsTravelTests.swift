import Foundation
import Testing
@testable import SimpleDataLogs

/// *How events travel* (the DocC article README links to) states the SDK's numbers; each is read
/// here from the constant the code uses, so the article cannot drift from the code. The behaviour
/// behind each number has its own tests (named in the comments).
@Suite("Docs: How events travel states the code's numbers", .stuckTestLimit)
struct HowEventsTravelTests {
    static let article: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
        let path = root.appendingPathComponent("Sources/SimpleDataLogs/SimpleDataLogs.docc/HowEventsTravel.md")
        // Line breaks and the indentation of wrapped list items are not part of what it says.
        return ((try? String(contentsOf: path, encoding: .utf8)) ?? "").replacing(/\s+/, with: " ")
    }()

    static func seconds(_ duration: Duration) -> Int64 { duration.components.seconds }

    @Test("when a batch leaves: 50 events, 256 KiB, 10 s or 5 s in debug builds (OutboxSealingTests, WhenEventsLeaveTests)")
    func batches() {
        #expect(Self.article.contains("it holds \(SealPolicy.defaultMaxEvents) events"))
        #expect(EventLimits.maxBodyBytes == 256 * 1_024 && Self.article.contains("over 256 KiB"))
        #expect(Self.article.contains("\(Self.seconds(SealPolicy.releaseMaxAge)) seconds have passed since its first event, or \(Self.seconds(SealPolicy.debugMaxAge)) seconds when the SDK is built for debugging"))
        #expect(SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_x").maxConcurrentRequests == 1 && Self.article.contains("one request at a time by default"))
    }

    @Test("the lifecycle moments: 20 s of background time, a 1 s drain and a 2 s hold (AppLifecycleTests)")
    func lifecycle() {
        #expect(LifecycleResponse.to(.enteredBackground).send == .inBackground(limit: .seconds(20)))
        #expect(Self.article.contains("after \(Self.seconds(LifecycleResponse.backgroundSendLimit)) seconds"))
        #expect(LifecycleResponse.to(.willSleep).send == .plain && Self.article.contains("The Mac goes to sleep | Sends"))
        #expect(Self.article.contains("(at most \(Self.seconds(LifecycleResponse.terminationDrain)) second)"))
        #expect(Self.article.contains("or \(Self.seconds(LifecycleResponse.terminationTotal)) seconds have passed since termination began"))
    }

    @Test("the answers: key probes at 1 and 10 minutes, backoff from 1 s to 5 minutes, Retry-After up to 1 hour (AnswerPolicy, Backoff, KeyProbeSchedule tests)")
    func answers() {
        #expect(Self.seconds(KeyProbeSchedule<ContinuousClock.Instant>.firstProbeDelay) == 60 && Self.seconds(KeyProbeSchedule<ContinuousClock.Instant>.laterProbeInterval) == 600)
        #expect(Self.article.contains("1 minute later, then every 10 minutes"))
        #expect(Self.seconds(Backoff.base) == 1 && Self.seconds(Backoff.maximum) == 300 && Self.seconds(Backoff.retryAfterCap) == 3_600)
        #expect(Self.article.contains("1 second × 2ⁿ⁻¹, at most 5 minutes") && Self.article.contains("up to 1 hour"))
        for status in ["| 202 |", "| 400 |", "| 401 |", "| 413 |", "| 415 |", "| 429, 5xx,"] {
            #expect(Self.article.contains(status), "the answers table has no row \(status)")
        }
    }

    @Test("sessions, activity and back-dating: 30 minutes, 10 s of input, 3,650 days (SessionRulesTests, EventValidator tests)")
    func sessionsAndActivity() {
        #expect(Self.article.contains("after 30 minutes away from the app"))
        #expect(ActivityRules.inputWindow == 10_000 && Self.article.contains("input in the last 10 seconds"))
        #expect(EventLimits.maxBackdateDays == 3_650 && Self.article.contains("up to 3,650 days back"))
    }

    @Test("the caps are Limits.standard's (LimitsTests, OutboxFaultTests, PipelineTests)")
    func caps() {
        let standard = SimpleDataLogsClient.Limits.standard
        #expect(standard.outboxEvents == 10_000 && standard.outboxBytes == 10_000_000 && standard.outboxFiles == 500)
        #expect(Self.article.contains("10,000 events, 10 MB or 500 batch files"))
        #expect(standard.backlogEvents == 5_000 && standard.backlogBytes == 16 << 20 && Self.article.contains("5,000 events or 16 MiB"))
        #expect(Self.article.contains("Events tracked before `configure` | 1,000 events"))
    }
}
