import Foundation

/// The journal's watermark (what a kill cannot take back), readable from any thread, and the
/// waits on it and on seals that tests and crash-test children use.
extension OutboxActor {
    /// What is on disk now; readable from any thread.
    nonisolated var watermark: JournalWatermark { watermarkState.withLock { $0 } }

    /// Blocks the calling thread (never one of the pool's) until at least `target` events have
    /// been written, or `timeout` passes. For tests and crash-test children on their own threads.
    /// - Returns: Whether the watermark got there.
    @available(*, noasync, message: "Blocks the calling thread; await the pipeline's barriers instead.")
    nonisolated func blockUntilWatermark(atLeast target: Int, timeout: DispatchTime) -> Bool {
        let signal = DispatchSemaphore(value: 0)
        let reached: Bool = watermarkWaiters.withLock { waiters in
            if watermarkState.withLock({ $0.eventsWritten }) >= target { return true }
            waiters.add(thread: signal, for: target)
            return false
        }
        return reached || signal.wait(timeout: timeout) == .success
    }

    /// Counts `count` more events as written (surviving `kill -9`) and wakes whoever waits for that.
    func advanceWatermark(by count: Int, latest: UUID?) {
        guard count > 0 else { return }
        let written: Int = watermarkState.withLock { watermark in
            watermark.eventsWritten += count
            if let latest { watermark.latestEventID = latest }
            return watermark.eventsWritten
        }
        watermarkWaiters.withLock { $0.takeReached(written) }.resume()
    }

    /// Returns once at least `count` batches have been sealed since launch.
    func waitUntilSealed(atLeast count: Int) async {
        guard queue.sealsSinceLaunch < count else { return }
        await withCheckedContinuation { sealWaiters.add(task: $0, for: count) }
    }

    /// The sealed batches, oldest first: what tests look at (the uploader learns them from its
    /// ``UploaderInput``).
    var sealedBatches: [StoredBatch] { Array(queue.sealed) }
}
