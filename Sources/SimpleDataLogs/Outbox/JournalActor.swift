#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Owns the outbox folder: appends every event to the journal file as it arrives.
///
/// Runs on a thread of its own (``ThreadExecutor``), so its blocking file calls never hold a
/// thread of the cooperative pool. It receives chunks of ``PipelineItem``s and writes each chunk
/// with as few `write(2)` calls as it can (one `write` of 64 events costs about a fifth per event
/// of 64 single writes here).
actor JournalActor {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let directory: String
    private let fileSystem: any FileSystem
    private let logger: SDKLogger
    private let problemLog: ProblemLog
    private let counters: StageCounters
    private let intake: Intake
    private let gate: WriterGate?
    private let watermarkState = Locked(JournalWatermark())
    private let watermarkWaiters = Locked<[(target: Int, signal: DispatchSemaphore)]>([])

    private var journalDescriptor: Int32 = -1
    private var journalPath: String { directory + "/journal.log" }
    private var encodeBuffer: [UInt8] = []
    private var recordBuffer: [UInt8] = []
    private var storedEvents = 0
    private var writeFailureLogged = false

    init(directory: String, fileSystem: any FileSystem, logger: SDKLogger, problemLog: ProblemLog, counters: StageCounters, intake: Intake, gate: WriterGate?, executor: ThreadExecutor) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.logger = logger
        self.problemLog = problemLog
        self.counters = counters
        self.intake = intake
        self.gate = gate
        self.executor = executor
    }

    /// What is on disk now; readable from any thread.
    nonisolated var watermark: JournalWatermark { watermarkState.withLock { $0 } }

    /// Blocks the calling thread (never one of the pool's) until at least `target` events have
    /// been written, or `timeout` passes. For tests and crash-test children that run on threads
    /// of their own.
    /// - Returns: Whether the watermark got there.
    nonisolated func blockUntilWatermark(atLeast target: Int, timeout: DispatchTime) -> Bool {
        let signal = DispatchSemaphore(value: 0)
        let reached: Bool = watermarkWaiters.withLock { waiters in
            if watermarkState.withLock({ $0.eventsWritten }) >= target { return true }
            waiters.append((target, signal))
            return false
        }
        return reached || signal.wait(timeout: timeout) == .success
    }

    /// Writes what arrives on `input` until it finishes.
    func run(input: AsyncStream<[PipelineItem]>) async {
        openJournal()
        for await chunk in input {
            if let gate { await gate.pass() }
            handle(chunk)
        }
        if journalDescriptor >= 0 { fileSystem.close(journalDescriptor) }
        journalDescriptor = -1
    }

    private func handle(_ chunk: [PipelineItem]) {
        var written = 0
        var latest: UUID?
        recordBuffer.removeAll(keepingCapacity: true)
        for item in chunk {
            switch item {
            case .event(let event):
                encodeBuffer.removeAll(keepingCapacity: true)
                EventEncoder.encode(event, into: &encodeBuffer)
                guard encodeBuffer.count + EventLimits.bodyOverheadBytes <= EventLimits.maxBodyBytes else {
                    logger.warning("Dropped event \"\(event.name)\": \(encodeBuffer.count) bytes, too large for a 256 KiB request even alone. Send fewer or shorter properties.")
                    counters.update { $0.droppedTooLarge += 1 }
                    if let skipped = intake.release(1) { problemLog.reportBacklogCleared(skipped) }
                    continue
                }
                JournalRecord.append(payload: encodeBuffer, to: &recordBuffer)
                written += 1
                latest = event.id
            case .optOut:
                flushRecords(count: written, latest: latest)
                written = 0
                deleteEverything()
            case .barrier(let barrier):
                flushRecords(count: written, latest: latest)
                written = 0
                barrier.pass()
            }
        }
        flushRecords(count: written, latest: latest)
    }

    /// Writes the buffered records in one go and moves the counters and the watermark.
    private func flushRecords(count: Int, latest: UUID?) {
        guard count > 0 else { return }
        writeAll(recordBuffer)
        recordBuffer.removeAll(keepingCapacity: true)
        storedEvents += count
        counters.update { $0.pendingOnDisk += count }
        let written: Int = watermarkState.withLock { watermark in
            watermark.eventsWritten += count
            if let latest { watermark.latestEventID = latest }
            return watermark.eventsWritten
        }
        let due = watermarkWaiters.withLock { waiters in
            defer { waiters.removeAll { $0.target <= written } }
            return waiters.filter { $0.target <= written }
        }
        for waiter in due { waiter.signal.signal() }
        if let skipped = intake.release(count) { problemLog.reportBacklogCleared(skipped) }
    }

    /// Appends `bytes` to the journal, completing short writes.
    private func writeAll(_ bytes: [UInt8]) {
        guard journalDescriptor >= 0 else { return }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                do {
                    let written = try fileSystem.write(journalDescriptor, UnsafeRawBufferPointer(rebasing: buffer[offset...]), path: journalPath)
                    offset += written
                } catch {
                    if !writeFailureLogged {
                        logger.error("Could not write the journal (\(error)); events stay in memory until the disk allows.")
                        writeFailureLogged = true
                    }
                    return
                }
            }
        }
    }

    private func openJournal() {
        do {
            try fileSystem.createDirectory(directory, mode: 0o700)
            journalDescriptor = try fileSystem.open(journalPath, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
        } catch {
            logger.error("Could not open the outbox in \(directory) (\(error)); events are kept in memory only.")
        }
    }

    /// The opt-out: every unsent event on disk goes.
    private func deleteEverything() {
        if journalDescriptor >= 0 { fileSystem.close(journalDescriptor) }
        journalDescriptor = -1
        try? fileSystem.remove(journalPath)
        let deleted = storedEvents
        storedEvents = 0
        counters.update {
            $0.deletedByOptOut += deleted
            $0.pendingOnDisk -= deleted
        }
        openJournal()
    }
}
