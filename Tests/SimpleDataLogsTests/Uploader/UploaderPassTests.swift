import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// The uploader's pass inside its state machine (issue 24): the window of requests in flight,
/// what was tried, what is read ahead, what was kept back, tested synchronously.
@Suite("Uploader: the pass, inside the state machine", .stuckTestLimit)
struct UploaderPassTests {
    typealias Machine = UploaderStateMachineTests.Machine
    static let start = UploaderStateMachineTests.start

    static func queued(_ count: Int, concurrent: Int) -> (Machine, [StoredBatch]) {
        var machine = UploaderStateMachineTests.machine(concurrent: concurrent)
        let batches = (0..<count).map { UploaderStateMachineTests.batch($0) }
        machine.apply([.joined(batches)])
        return (machine, batches)
    }

    static func send(_ machine: inout Machine) -> StoredBatch? {
        guard let batch = machine.takeNext() else { return nil }
        _ = machine.requestLeft()
        return batch
    }

    @Test("a sliding window: two places, the third batch goes once an answer frees one; the read-ahead is what goes next; the pass ends idle")
    func window() {
        var (machine, batches) = Self.queued(4, concurrent: 2)
        #expect(machine.state == .idle)
        _ = machine.beginPass()
        #expect(Self.send(&machine)?.id == batches[0].id)
        #expect(machine.hasFreePlace, "one in flight, one place free: the uploader listens for new batches")
        #expect(Self.send(&machine)?.id == batches[1].id)
        #expect(machine.takeNext() == nil, "both places in flight")
        #expect(!machine.hasFreePlace, "a new batch could not leave now: no need to hear of it before an answer")
        #expect(machine.readAheadCandidates.map(\.id) == [batches[2].id, batches[3].id], "read while the first two are in flight")
        #expect(machine.awaitsAnswers)
        _ = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(202), for: batches[0], at: Self.start)
        #expect(Self.send(&machine)?.id == batches[2].id, "a place came free")
        _ = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(202), for: batches[1], at: Self.start)
        _ = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(202), for: batches[2], at: Self.start)
        #expect(Self.send(&machine)?.id == batches[3].id)
        _ = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(202), for: batches[3], at: Self.start)
        #expect(!machine.awaitsAnswers && machine.takeNext() == nil)
        #expect(machine.endPass().isEmpty)
        #expect(machine.state == .idle && machine.queue.isEmpty)
    }

    @Test("an answer that says to wait stops new requests; the one in flight is still heard; no read-ahead after it")
    func stopsOnBackoff() {
        var (machine, batches) = Self.queued(4, concurrent: 2)
        _ = machine.beginPass()
        _ = Self.send(&machine)
        _ = Self.send(&machine)
        let step = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(503), for: batches[0], at: Self.start)
        #expect(!step.passGoesOn)
        #expect(machine.takeNext() == nil && machine.readAheadCandidates.isEmpty, "nothing new after a 503")
        #expect(!machine.hasFreePlace, "a place is free, but the pass takes no new batch after a 503")
        #expect(machine.awaitsAnswers, "batch 1 is still in flight")
        _ = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(202), for: batches[1], at: Self.start)
        _ = machine.endPass()
        if case .backingOff = machine.state {} else { Issue.record("backing off after the pass: \(machine.state)") }
    }

    @Test("a batch is taken once per pass, even when it could not be read: kept back, reported once at the pass's end with a retry timer")
    func keptBack() {
        var (machine, batches) = Self.queued(2, concurrent: 1)
        _ = machine.beginPass()
        let first = machine.takeNext()
        #expect(first?.id == batches[0].id)
        machine.keptBack(batches[0], error: FileSystemError(code: EIO, operation: "read", path: "x"))
        #expect(Self.send(&machine)?.id == batches[1].id, "the batch behind it goes")
        _ = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(202), for: batches[1], at: Self.start)
        #expect(machine.takeNext() == nil, "batch 0 is not taken again in this pass")
        let ended = machine.endPass()
        #expect(UploaderStateMachineTests.logs(ended).count == 1 && UploaderStateMachineTests.timers(ended).count == 1)
        #expect(machine.queue.map(\.id) == [batches[0].id], "kept queued")
    }

    @Test("a batch being split is not sent again until the outbox answers; then its halves go, and a refused split is retried later")
    func split() {
        var (machine, batches) = Self.queued(1, concurrent: 1)
        _ = machine.beginPass()
        _ = Self.send(&machine)
        let step = UploaderStateMachineTests.answer(&machine, UploaderStateMachineTests.status(413), for: batches[0], at: Self.start)
        #expect(step.actions.contains(.split(batches[0].id)))
        #expect(machine.takeNext() == nil, "the parent waits for the outbox's answer")
        _ = machine.endPass()
        let halves = [UploaderStateMachineTests.batch(0), UploaderStateMachineTests.batch(0)]
        let ended = machine.splitEnded(parent: batches[0].id, halves: halves)
        #expect(ended == [.publish(.split(batchID: batches[0].id, into: halves.map(\.id)))])
        _ = machine.beginPass()
        let sentHalf = Self.send(&machine)
        #expect(sentHalf.map { halves.map(\.id).contains($0.id) } == true, "a half goes")
        var refused = Self.queued(1, concurrent: 1)
        _ = refused.0.beginPass()
        _ = Self.send(&refused.0)
        _ = UploaderStateMachineTests.answer(&refused.0, UploaderStateMachineTests.status(413), for: refused.1[0], at: Self.start)
        #expect(UploaderStateMachineTests.timers(refused.0.splitEnded(parent: refused.1[0].id, halves: nil)).count == 1, "retried under the local-fault backoff")
        #expect(refused.0.queue.map(\.id) == [refused.1[0].id], "the parent stays queued")
    }
}
