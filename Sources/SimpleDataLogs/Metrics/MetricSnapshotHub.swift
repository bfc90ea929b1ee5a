/// Serves a client's metric snapshots: one polling task per subscriber, reading the counters at
/// each tick of the client's clock, and every subscriber finished once the client shuts down.
///
/// Polling, not signalling: the stages never tell it anything, so `track()` and the uploader pay
/// nothing for it; a subscriber costs one read of the counters (two short locks) per interval.
/// Each subscriber's stream buffers one element (`bufferingNewest(1)`): a snapshot holds every
/// counter in full, so the newest one says all that the ones it replaced did, and memory stays
/// bounded however slowly the subscriber reads.
final class MetricSnapshotHub: Sendable {
    /// Intervals below this are raised to it: a snapshot a few times a second is already more
    /// than a dashboard shows, and an interval of zero would spin.
    static let minimumInterval: Duration = .milliseconds(100)

    private struct State: Sendable {
        var pollers: [Int: Task<Void, Never>] = [:]
        var nextID = 0
        var isFinished = false
    }

    private let state = Locked(State())
    private let source: CounterSource
    private let clock: any Clock<Duration>

    init(source: CounterSource, clock: any Clock<Duration>) {
        self.source = source
        self.clock = clock
    }

    /// A new subscriber's snapshots: the current one is in the stream before this returns.
    /// After ``finish()`` the stream holds that one and is finished.
    func subscribe(every interval: Duration) -> MetricSnapshots {
        let (stream, continuation) = AsyncStream.makeStream(of: MetricSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let superseded = Locked(0)
        var changes = SnapshotChanges()
        continuation.yield(changes.subscribed(source.metricSnapshot))
        let id: Int? = state.withLock { state in
            guard !state.isFinished else { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return MetricSnapshots(stream: stream, superseded: superseded)
        }
        let poller = Task { [source, clock, changes, weak self] in
            var changes = changes
            let period = max(interval, Self.minimumInterval)
            // Ends when cancelled: by `finish()` (the client shut down) or by the subscriber leaving.
            while true {
                do { try await clock.sleep(for: period) } catch { break }
                if let snapshot = changes.tick(source.metricSnapshot) { Self.yield(snapshot, to: continuation, counting: superseded) }
            }
            if let snapshot = changes.finish(source.metricSnapshot) { Self.yield(snapshot, to: continuation, counting: superseded) }
            continuation.finish()
            self?.state.withLock { _ = $0.pollers.removeValue(forKey: id) }
        }
        // Registered after it started, so a `finish()` in between is caught here.
        let lateForFinish: Bool = state.withLock { state in
            guard !state.isFinished else { return true }
            state.pollers[id] = poller
            return false
        }
        if lateForFinish { poller.cancel() }
        continuation.onTermination = { _ in poller.cancel() }
        return MetricSnapshots(stream: stream, superseded: superseded)
    }

    /// Ends every subscriber's polling, after its final snapshot (if it changed), and returns
    /// once every polling task has ended. Later subscribers get the current snapshot and a
    /// finished stream. Call it after the client's last send.
    func finish() async {
        for poller in stop() { await poller.value }
    }

    /// Ends every subscriber's polling without waiting for it (a released client's `deinit`).
    /// - Returns: The polling tasks, cancelled.
    @discardableResult
    func stop() -> [Task<Void, Never>] {
        let pollers = state.withLock { state in
            state.isFinished = true
            return Array(state.pollers.values)
        }
        for poller in pollers { poller.cancel() }
        return pollers
    }

    private static func yield(_ snapshot: MetricSnapshot, to continuation: AsyncStream<MetricSnapshot>.Continuation, counting superseded: Locked<Int>) {
        if case .dropped = continuation.yield(snapshot) { superseded.withLock { $0 += 1 } }
    }
}
