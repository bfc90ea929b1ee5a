import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// The uploader's rules, tested synchronously on the state machine: no actor, no socket, no clock
/// that runs. Instants are `ContinuousClock`'s, moved by hand.
@Suite("Uploader: the state machine", .stuckTestLimit)
struct UploaderStateMachineTests {
    typealias Machine = UploaderStateMachine<ContinuousClock.Instant, SplitMix64>
    static let start = ContinuousClock.now
    static let wallNow = Date(timeIntervalSince1970: 1_796_205_600)

    static func machine(concurrent: Int = 1) -> Machine {
        Machine(maxConcurrentRequests: concurrent, backoffScale: 1, random: SplitMix64(seed: 7))
    }

    static func batch(_ sequence: Int, events: Int = 10) -> StoredBatch {
        StoredBatch(id: UUID(), sequence: sequence, path: "", eventCount: events, byteCount: 1_000)
    }

    static let attempt = AnswerPolicy.Attempt(wasGzipped: false, eventCount: 10, bodyBytes: 1_000)

    static func status(_ code: Int, headers: [String: String] = [:]) -> AnswerPolicy.Outcome {
        .answered(UploadResponse(status: code, headers: headers))
    }

    /// Sends one answer for `batch` at `now` (the request left at `sentAt`, by default `now`, in
    /// failure round `round`, by default the machine's current one: a request sent just now).
    static func answer(
        _ machine: inout Machine, _ outcome: AnswerPolicy.Outcome, for batch: StoredBatch,
        at now: ContinuousClock.Instant, sentAt: ContinuousClock.Instant? = nil, round: Int? = nil
    ) -> Machine.Step {
        let round = round ?? machine.failureRound
        return machine.answered(
            outcome, attempt: attempt, batch: batch, sentAt: sentAt ?? now, sentInRound: round, now: now,
            elapsed: (sentAt ?? now).duration(to: now), wallNow: wallNow
        )
    }

    /// `startsPass`, outside `#expect` (which cannot call a mutating member).
    static func starts(_ machine: inout Machine, _ wake: Machine.Wake, at now: ContinuousClock.Instant) -> Bool {
        machine.startsPass(after: wake, at: now)
    }

    /// The lines an operator sees by default (info and up), once per episode; the debug lines
    /// are ``debugLines(_:)``.
    static func logs(_ actions: [Machine.Action]) -> [(LogLevel, String)] {
        actions.compactMap { if case .log(let level, let text) = $0, level > .debug { (level, text) } else { nil } }
    }

    static func debugLines(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { if case .log(.debug, let text) = $0 { text } else { nil } }
    }

    static func withoutDebug(_ actions: [Machine.Action]) -> [Machine.Action] {
        actions.filter { if case .log(.debug, _) = $0 { false } else { true } }
    }

    static func timers(_ actions: [Machine.Action]) -> [(Duration, Int)] {
        actions.compactMap { if case .startTimer(let delay, let generation) = $0 { (delay, generation) } else { nil } }
    }

    // MARK: Head-of-line

    @Test("a round takes the oldest untried batches, at most maxConcurrentRequests, demoted ones last")
    func rounds() {
        var machine = Self.machine(concurrent: 2)
        let batches = (0..<4).map { Self.batch($0) }
        // Posted out of order and twice: the queue keeps age order and each batch once.
        machine.apply([.joined([batches[2], batches[3]]), .joined([batches[0], batches[1], batches[2]])])
        #expect(machine.queue.map(\.sequence) == [0, 1, 2, 3])
        #expect(machine.nextRound(tried: []).map(\.sequence) == [0, 1])
        #expect(machine.nextRound(tried: [batches[0].id, batches[1].id]).map(\.sequence) == [2, 3])
        #expect(machine.nextRound(tried: Set(batches.map(\.id))).isEmpty)

        // Batch 0 fails three times in a row: it goes to the back, with one warning.
        var warnings = 0
        for failure in 1...3 {
            let step = Self.answer(&machine, Self.status(503), for: batches[0], at: Self.start)
            warnings += Self.logs(step.actions).filter { $0.1.contains("failed \(failure) times") }.count
        }
        #expect(warnings == 1)
        #expect(machine.demoted == [batches[0].id])
        #expect(machine.nextRound(tried: []).map(\.sequence) == [1, 2])
        #expect(machine.nextRound(tried: [batches[1].id, batches[2].id, batches[3].id]).map(\.sequence) == [0])
        // A fourth failure does not warn again.
        #expect(Self.logs(Self.answer(&machine, Self.status(503), for: batches[0], at: Self.start).actions).allSatisfy { !$0.1.contains("times in a row") })
    }

    @Test("a batch that left the outbox's queue (caps, opt-out) is forgotten when the feed says so; a delivered one at once")
    func forgetting() {
        var machine = Self.machine()
        let (first, second) = (Self.batch(0), Self.batch(1))
        machine.apply([.joined([first, second])])
        for _ in 0..<3 {
            _ = Self.answer(&machine, Self.status(500), for: first, at: Self.start)
            _ = Self.answer(&machine, Self.status(500), for: second, at: Self.start)
        }
        #expect(machine.demoted == [first.id, second.id])
        machine.apply([.left([first.id])])
        #expect(machine.demoted == [second.id] && machine.failuresByBatch.keys.sorted() == [second.id])
        #expect(machine.queue == [second])
        _ = Self.answer(&machine, Self.status(202), for: second, at: Self.start)
        #expect(machine.demoted.isEmpty && machine.failuresByBatch.isEmpty && machine.queue.isEmpty)
        machine.apply([.left([second.id])])
        #expect(machine.queue.isEmpty, "the outbox's own word that it left changes nothing more")
    }

    // MARK: Backoff

    @Test("a failure backs off: a timer, one warning per episode, a report; the pass stops; a 202 ends the episode with one info line")
    func backoffEpisode() throws {
        var machine = Self.machine()
        let batch = Self.batch(0)
        let first = Self.answer(&machine, Self.status(503), for: batch, at: Self.start)
        #expect(!first.passGoesOn)
        let (delay, generation) = try #require(Self.timers(first.actions).first)
        #expect(generation == 1 && delay <= .seconds(1))
        #expect(Self.logs(first.actions).map(\.0) == [.warning])
        #expect(first.actions.last == .publish(.willRetry(batchID: batch.id, after: delay, reason: "HTTP 503")))
        #expect(machine.resumeAt == Self.start.advanced(by: delay))

        let second = Self.answer(&machine, .failed(TransportError(.timedOut, message: "no answer")), for: batch, at: Self.start)
        #expect(Self.logs(second.actions).isEmpty, "one warning per episode")
        #expect(Self.timers(second.actions).first?.1 == 2)
        #expect(machine.backoff.consecutiveFailures == 2)

        let delivered = Self.answer(&machine, Self.status(202), for: batch, at: Self.start)
        #expect(delivered.passGoesOn)
        #expect(delivered.actions.first == .markDelivered(batch.id, rejected: 0), "the outbox first, then the words")
        #expect(Self.logs(delivered.actions).map(\.0) == [.info])
        #expect(Self.logs(delivered.actions).first?.1.contains("after 2 failed tries") == true)
        #expect(delivered.actions.last == .publish(.delivered(batchID: batch.id, delivered: 10, rejected: [])))
        #expect(machine.backoff.consecutiveFailures == 0)

        let again = Self.answer(&machine, Self.status(500), for: batch, at: Self.start)
        #expect(Self.logs(again.actions).count == 1, "a new episode warns again")
    }

    @Test("the failures of one round of concurrent requests count once: one wait, not replaced; the next round is the second failure")
    func failuresCountedOncePerRound() throws {
        var machine = Self.machine(concurrent: 4)
        let batches = (0..<4).map { Self.batch($0) }
        machine.apply([.joined(batches)])
        // Four requests leave together, then the edge refuses them one after the other.
        let round = machine.failureRound
        let first = Self.answer(&machine, .failed(TransportError(.cannotConnect, message: "refused")), for: batches[0], at: Self.start, round: round)
        let (delay, generation) = try #require(Self.timers(first.actions).first)
        #expect(delay <= Backoff.ceiling(afterFailures: 1))
        let resumeAt = try #require(machine.resumeAt)
        for (offset, batch) in batches.dropFirst().enumerated() {
            let at = Self.start.advanced(by: .milliseconds(10 * (offset + 1)))
            let step = Self.answer(&machine, Self.status(503), for: batch, at: at, round: round)
            #expect(!step.passGoesOn)
            #expect(Self.timers(step.actions).isEmpty, "the round's wait is not replaced by a new draw")
            #expect(Self.logs(step.actions).isEmpty, "one warning per episode")
            #expect(step.actions.last == .publish(.willRetry(batchID: batch.id, after: max(.zero, at.duration(to: resumeAt)), reason: "HTTP 503")))
        }
        #expect(machine.backoff.consecutiveFailures == 1, "one round, one failure (it was counted as failures 1 to 4)")
        #expect(machine.resumeAt == resumeAt)
        #expect(machine.failuresByBatch.values.allSatisfy { $0 == 1 }, "each batch's own count (for demotion) still counts its try")

        // The timer fires; the next round's failures count as the second failure, once.
        #expect(Self.starts(&machine, .timerFired(generation: generation), at: resumeAt))
        let nextRound = machine.failureRound
        let second = Self.answer(&machine, Self.status(503), for: batches[0], at: resumeAt, round: nextRound)
        #expect(Self.timers(second.actions).first.map { $0.0 <= Backoff.ceiling(afterFailures: 2) } == true)
        _ = Self.answer(&machine, Self.status(503), for: batches[1], at: resumeAt, round: nextRound)
        #expect(machine.backoff.consecutiveFailures == 2)

        // A later answer of the same round that asks for longer (Retry-After) is obeyed; one
        // that asks for less changes nothing.
        let longer = Self.answer(&machine, Self.status(429, headers: ["Retry-After": "30"]), for: batches[2], at: resumeAt, round: nextRound)
        #expect(Self.timers(longer.actions).first?.0 == .seconds(30))
        #expect(machine.resumeAt == resumeAt.advanced(by: .seconds(30)))
        let shorter = Self.answer(&machine, Self.status(429, headers: ["Retry-After": "5"]), for: batches[3], at: resumeAt, round: nextRound)
        #expect(Self.timers(shorter.actions).isEmpty && machine.resumeAt == resumeAt.advanced(by: .seconds(30)))
        #expect(machine.backoff.consecutiveFailures == 2)

        // A request that leaves after the count (a flush at the same instant of a manual clock)
        // is a new round: the rule does not depend on the clock moving.
        let flushed = Self.answer(&machine, Self.status(503), for: batches[0], at: resumeAt, round: machine.failureRound)
        #expect(Self.timers(flushed.actions).count == 1 && machine.backoff.consecutiveFailures == 3)
    }

    @Test("a 2xx that is not 202 is not delivery: it backs off and says to check the endpoint")
    func otherSuccess() {
        var machine = Self.machine()
        let step = Self.answer(&machine, Self.status(200), for: Self.batch(0), at: Self.start)
        #expect(!step.passGoesOn)
        #expect(Self.logs(step.actions).first?.1.contains("HTTP 200, not 202: is the endpoint the ingest itself?") == true)
        #expect(!step.actions.contains { if case .markDelivered = $0 { true } else { false } })
    }

    @Test("while backing off only a flush starts a pass (not under a Retry-After); the backoff's own timer does, a stale one does not")
    func passesDuringBackoff() throws {
        var machine = Self.machine()
        let step = Self.answer(&machine, Self.status(503, headers: ["Retry-After": "30"]), for: Self.batch(0), at: Self.start)
        let (delay, generation) = try #require(Self.timers(step.actions).first)
        #expect(delay == .seconds(30), "Retry-After wins over a shorter jittered wait")
        #expect(!Self.starts(&machine, .batchesAvailable, at: Self.start.advanced(by: .seconds(10))))
        #expect(!Self.starts(&machine, .flush(lastChance: false), at: Self.start.advanced(by: .seconds(10))), "a Retry-After holds a flush too")
        #expect(!Self.starts(&machine, .timerFired(generation: generation - 1), at: Self.start.advanced(by: .seconds(10))), "stale")
        #expect(machine.resumeAt != nil, "a stale timer changes nothing")
        #expect(Self.starts(&machine, .timerFired(generation: generation), at: Self.start.advanced(by: .seconds(30))))
        #expect(machine.resumeAt == nil)
        #expect(Self.starts(&machine, .batchesAvailable, at: Self.start.advanced(by: .seconds(30))))
    }

    // MARK: The debug story

    @Test("at debug, each answer says what was heard and its round trip (after the outbox's action), each backoff its delay and why, each probe that it probes")
    func debugStory() {
        var machine = Self.machine()
        let batch = Self.batch(0, events: 50)
        let id = batch.id.uuidString.lowercased()

        let failed = Self.answer(&machine, Self.status(503, headers: ["Retry-After": "7"]), for: batch, at: Self.start.advanced(by: .milliseconds(38)), sentAt: Self.start)
        #expect(Self.debugLines(failed.actions) == [
            "Batch \(id): HTTP 503 after 38 ms (50 events).",
            "Next try in 7.0 s (the ingest's Retry-After of 7.0 s).",
        ])
        let silent = Self.answer(
            &machine, .failed(TransportError(.timedOut, message: "no answer within 30 s")), for: batch,
            at: Self.start.advanced(by: .seconds(40)), sentAt: Self.start.advanced(by: .seconds(10))
        )
        #expect(Self.debugLines(silent.actions).first?.hasPrefix("Batch \(id): no answer (") == true)
        #expect(Self.debugLines(silent.actions).first?.hasSuffix("after 30.0 s (50 events).") == true)
        #expect(Self.debugLines(silent.actions).last?.contains("backoff after 2 failed tries in a row") == true)

        let sentAt = Self.start.advanced(by: .seconds(100))
        let delivered = Self.answer(&machine, Self.status(202), for: batch, at: sentAt.advanced(by: .milliseconds(1_234)), sentAt: sentAt)
        #expect(delivered.actions.first == .markDelivered(batch.id, rejected: 0), "the outbox first")
        #expect(delivered.actions[1] == .log(.debug, "Batch \(id): HTTP 202 after 1.2 s (50 events)."), "then what was heard")
        #expect(Self.debugLines(machine.beginPass()).isEmpty, "not paused: an ordinary pass")

        let next = Self.batch(1)
        let paused = Self.answer(&machine, Self.status(401), for: next, at: Self.start.advanced(by: .seconds(200)))
        #expect(Self.debugLines(paused.actions).count == 1, "what was heard; the error line says the rest")
        #expect(Self.debugLines(machine.beginPass()) == ["Probing the key: the oldest batch goes again after 1 401 answer(s)."])
        let still = Self.answer(&machine, Self.status(401), for: next, at: Self.start.advanced(by: .seconds(261)))
        #expect(Self.logs(still.actions).isEmpty)
        #expect(Self.debugLines(still.actions).last == "Still paused for the key; next probe in 10 min.")
        let resumed = Self.answer(&machine, Self.status(202), for: next, at: Self.start.advanced(by: .seconds(900)))
        #expect(Self.logs(resumed.actions).map(\.1).contains { $0.contains("accepts the key again") })
    }

    // MARK: The key

    @Test("a 401 during a backoff pauses for the key: the backoff's timer goes stale, a flush waits, a last chance and the probe go")
    func unauthorizedDuringBackoff() throws {
        var machine = Self.machine()
        let batch = Self.batch(0)
        let backoff = Self.answer(&machine, Self.status(503), for: batch, at: Self.start)
        let backoffTimer = try #require(Self.timers(backoff.actions).first)

        let at = Self.start.advanced(by: .milliseconds(100))
        let paused = Self.answer(&machine, Self.status(401), for: batch, at: at)
        #expect(!paused.passGoesOn)
        #expect(Self.logs(paused.actions).map(\.0) == [.error])
        let probeTimer = try #require(Self.timers(paused.actions).first)
        #expect(probeTimer == (.seconds(60), backoffTimer.1 + 1))
        #expect(paused.actions.last == .publish(.pausedForKey(nextProbeAfter: .seconds(60))))

        let later = at.advanced(by: .seconds(30))
        #expect(!Self.starts(&machine, .timerFired(generation: backoffTimer.1), at: later), "the backoff's timer is stale now")
        #expect(!Self.starts(&machine, .flush(lastChance: false), at: later), "a flush does not probe a bad key")
        #expect(!Self.starts(&machine, .batchesAvailable, at: later))
        #expect(Self.starts(&machine, .flush(lastChance: true), at: later), "flushAndDisable's last try goes, as a probe")
        #expect(Self.starts(&machine, .timerFired(generation: probeTimer.1), at: at.advanced(by: .seconds(60))), "the probe")
    }

    @Test("two 401s to requests of one round count once; the next round's 401 waits 10 minutes without a second error line")
    func unauthorizedCountedOncePerRound() throws {
        var machine = Self.machine(concurrent: 2)
        let (first, second) = (Self.batch(0), Self.batch(1))
        let sentAt = Self.start
        let one = Self.answer(&machine, Self.status(401), for: first, at: sentAt.advanced(by: .milliseconds(5)), sentAt: sentAt)
        let two = Self.answer(&machine, Self.status(401), for: second, at: sentAt.advanced(by: .milliseconds(6)), sentAt: sentAt)
        #expect(Self.logs(one.actions).count == 1 && Self.logs(two.actions).isEmpty)
        #expect(machine.probe.consecutiveUnauthorized == 1)
        let probeAt = sentAt.advanced(by: .seconds(61))
        let probe = Self.answer(&machine, Self.status(401), for: first, at: probeAt)
        #expect(Self.logs(probe.actions).isEmpty)
        #expect(Self.timers(probe.actions).first?.0 == .seconds(600))
        let accepted = Self.answer(&machine, Self.status(202), for: first, at: probeAt.advanced(by: .seconds(600)))
        #expect(accepted.passGoesOn && !machine.probe.isPaused)
    }

    // MARK: Local faults

    @Test("unreadable files: one warning per episode, a retry timer unless a backoff runs, and a clean pass ends the episode")
    func unreadableEpisodes() {
        var machine = Self.machine()
        let batch = Self.batch(0)
        let error = FileSystemError(code: EIO, operation: "read", path: "/outbox/b")
        _ = machine.beginPass()
        let first = machine.passEnded(unreadable: [(batch, error)])
        #expect(Self.logs(first).count == 1 && Self.timers(first).count == 1)
        _ = machine.beginPass()
        let second = machine.passEnded(unreadable: [(batch, error)])
        #expect(Self.logs(second).isEmpty && Self.timers(second).count == 1)
        #expect(machine.readBackoff.consecutiveFailures == 2)

        _ = machine.beginPass()
        #expect(machine.passEnded(unreadable: []).isEmpty)
        #expect(machine.readBackoff.consecutiveFailures == 0)
        _ = machine.beginPass()
        #expect(Self.logs(machine.passEnded(unreadable: [(batch, error)])).count == 1, "a new episode warns again")

        // While the edge's backoff runs, its timer covers the retry: no second timer.
        _ = Self.answer(&machine, Self.status(503), for: Self.batch(1), at: Self.start)
        _ = machine.beginPass()
        #expect(Self.timers(machine.passEnded(unreadable: [(batch, error)])).isEmpty)
    }

    @Test("a 413 asks the outbox to split; a split the disk refused retries under the local backoff, and the episode survives the pass")
    func splits() {
        var machine = Self.machine()
        let batch = StoredBatch(id: UUID(), sequence: 0, path: "r", eventCount: 10, byteCount: 1_000)
        _ = machine.beginPass()
        let step = Self.answer(&machine, Self.status(413), for: batch, at: Self.start)
        #expect(step.passGoesOn && Self.withoutDebug(step.actions) == [.split(batch.id)])
        let refused = machine.splitEnded(batch, halves: nil)
        #expect(Self.timers(refused).count == 1)
        #expect(machine.passEnded(unreadable: []).isEmpty)
        #expect(machine.readBackoff.consecutiveFailures == 1, "a full disk is not retried every second")

        let newer = Self.batch(1)
        machine.apply([.joined([batch, newer])])
        let left = StoredBatch(id: UUID(), sequence: 0, path: "r0", eventCount: 5, byteCount: 500)
        let right = StoredBatch(id: UUID(), sequence: 0, path: "r1", eventCount: 5, byteCount: 500)
        #expect(machine.splitEnded(batch, halves: (left, right)) == [.publish(.split(batchID: batch.id, into: [left.id, right.id]))])
        #expect(machine.queue.map(\.id) == [left.id, right.id, newer.id], "the halves take the parent's place, before the newer batch")
    }

    @Test("400 sets aside, a single event's 413 is dropped: both logged, reported, and the pass goes on")
    func setAsideAndDrop() {
        var machine = Self.machine()
        let batch = Self.batch(0)
        let aside = Self.answer(&machine, .answered(UploadResponse(status: 400, body: Data(#"{"error":"bad json"}"#.utf8))), for: batch, at: Self.start)
        #expect(aside.passGoesOn && aside.actions.first == .setAside(batch.id))
        #expect(Self.logs(aside.actions).count == 1)

        let single = Self.batch(1, events: 1)
        let round = machine.failureRound
        let dropped = machine.answered(
            Self.status(413), attempt: AnswerPolicy.Attempt(wasGzipped: false, eventCount: 1, bodyBytes: 900_000),
            batch: single, sentAt: Self.start, sentInRound: round, now: Self.start, elapsed: .zero, wallNow: Self.wallNow
        )
        #expect(dropped.passGoesOn && dropped.actions.first == .dropTooLarge(single.id))
        #expect(dropped.actions.last == .publish(.dropped(batchID: single.id, events: 1, reason: "too large (413)")))
    }
}
