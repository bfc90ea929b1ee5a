import Foundation
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// An outbox and its sealer wired as the pipeline wires them, on threads of their own, over a
/// fault-injecting file system, without the stages in front: the tests push chunks into
/// ``input`` themselves. ``finish()`` ends both runs and closes the outbox.
struct SealedOutbox: Sendable {
    let journal: OutboxActor
    /// Where the tests push chunks, as the sessions stage does.
    let input: ChunkInput
    private let channel: SealerChannel
    private let executors: [ThreadExecutor]
    private let running: Task<Void, Never>
    private let sealing: Task<Void, Never>

    init(directory: TemporaryDirectory, files: FaultInjectingFileSystem, caps: OutboxCaps = OutboxCaps()) {
        let logger = SDKLogger(level: .debug, sink: RecordingLogSink())
        let executor = ThreadExecutor(name: "test.journal")
        let sealerExecutor = ThreadExecutor(name: "test.sealer")
        executors = [executor, sealerExecutor]
        let queue = HandOffQueue<OutboxInput>()
        input = ChunkInput(queue: queue)
        let channel = SealerChannel(outbox: queue)
        self.channel = channel
        let sealer = SealerActor(fileSystem: files, crashPoint: nil, executor: sealerExecutor)
        sealing = Task { await sealer.run(channel) }
        let journal = OutboxActor(
            directory: directory.path, fileSystem: files, logger: logger, problemLog: ProblemLog(logger: logger),
            counters: StageCounters(), intake: Intake(), clock: ManualClock(), faults: files.injection,
            policy: SealPolicy(), caps: caps, input: queue, sealer: channel, executor: executor
        )
        self.journal = journal
        running = Task { await journal.run() }
    }

    /// The outbox's input as the sessions stage feeds it: chunks, in order.
    struct ChunkInput: Sendable {
        let queue: HandOffQueue<OutboxInput>

        func push(_ chunk: [PipelineItem]) { queue.push(.chunk(chunk)) }
        func finish() { queue.finish() }
    }

    /// One event per number, `extra` added to its properties.
    static func chunk(_ range: Range<Int>, extra: [String: PropertyValue] = [:]) -> [PipelineItem] {
        range.map { seq in
            .event(Event(name: "e", id: UUID(), timestamp: 1_700_000_000_000, trackedAt: 1_700_000_000_000,
                         properties: extra.merging(["seq": .int(Int64(seq))]) { $1 }, origin: .live))
        }
    }

    /// Passes a barrier through the outbox: every seal handed over before it is queued after.
    func barrier() async throws {
        let barrier = Barrier()
        input.push([.barrier(barrier)])
        try await withTimeLimit(waitingFor: "the journal to pass a barrier") { await barrier.wait() }
    }

    /// Ends the outbox's run, closes it, ends the sealer's run and stops both threads.
    func finish() async throws {
        input.finish()
        try await withTimeLimit(waitingFor: "the journal's run to end with its finished queue") { await running.value }
        await journal.close()
        channel.jobs.finish()
        try await withTimeLimit(waitingFor: "the sealer's run to end with its finished queue") { await sealing.value }
        for executor in executors { executor.stop() }
    }
}
