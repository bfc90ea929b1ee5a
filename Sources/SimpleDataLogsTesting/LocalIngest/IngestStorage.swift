import Dispatch
import SimpleDataLogs

/// Everything ``LocalIngest`` remembers, under one lock, and the tasks waiting for it to change.
///
/// Every mutation runs inside one `withLock`, collects the waiters it satisfied, and resumes them
/// after unlocking (never while holding the lock). Socket threads and test tasks both call in.
final class IngestStorage: Sendable {
    /// The result of counting one valid batch.
    struct Tally: Sendable, Equatable {
        var accepted = 0
        var duplicates = 0
        var rejections: [IngestRejection] = []
        var isReplay = false
    }

    /// A wait in progress: an awaiting task's continuation, or a blocked thread's semaphore,
    /// behind one `resume`, called exactly once.
    private struct Waiter: Sendable {
        var isSatisfied: @Sendable (LocalIngest.Summary) -> Bool
        var resume: @Sendable (Bool) -> Void
    }

    private struct State: Sendable {
        var script: [ScriptedAnswer] = []
        var keyMadeLive = false
        var seenEventIDs: Set<String> = []
        var seenBatchIDs: Set<String> = []
        var received: [ReceivedEvent] = []
        var raw: [ReceivedEvent] = []
        var requests: [RecordedRequest] = []
        var summary = LocalIngest.Summary()
        var waiters: [Int: Waiter] = [:]
        /// Waiter ids whose timeout fired before they registered (see `wait`).
        var expired: Set<Int> = []
        var nextWaiterID = 0
        /// Set by `cancelAllWaits()`: later waits end at once instead of at their timeout.
        var waitsEnded = false

        /// Removes and returns the waiters the current summary satisfies.
        mutating func takeSatisfied() -> [@Sendable (Bool) -> Void] {
            let ready = waiters.filter { $0.value.isSatisfied(summary) }
            for id in ready.keys { waiters.removeValue(forKey: id) }
            return ready.values.map(\.resume)
        }
    }

    private let state = Locked(State())

    // MARK: Script and key

    func setScript(_ answers: [ScriptedAnswer]) { state.withLock { $0.script = answers } }

    func appendScript(_ answers: [ScriptedAnswer]) { state.withLock { $0.script += answers } }

    var remainingScript: [ScriptedAnswer] { state.withLock { $0.script } }

    /// Takes the next scripted answer if it is ``ScriptedAnswer/closeBeforeReading``, and counts it.
    func takeCloseBeforeReading() -> Bool {
        let resumed: [@Sendable (Bool) -> Void]? = state.withLock { state in
            guard state.script.first?.action == .closeBeforeReading else { return nil }
            state.script.removeFirst()
            state.summary.closedBeforeReading += 1
            return state.takeSatisfied()
        }
        guard let resumed else { return false }
        for resume in resumed { resume(true) }
        return true
    }

    /// Takes the next scripted answer, whatever it is.
    func takeScriptedAnswer() -> ScriptedAnswer? {
        state.withLock { state in state.script.isEmpty ? nil : state.script.removeFirst() }
    }

    func makeKeyLive() { state.withLock { $0.keyMadeLive = true } }

    var keyMadeLive: Bool { state.withLock { $0.keyMadeLive } }

    // MARK: Recording

    /// Counts a valid batch (deduplicating by batch id and event id) and records its request.
    func count(_ verdicts: [IngestValidator.Verdict], batchID: String?, request: RecordedRequest) -> Tally {
        let (tally, resumed): (Tally, [@Sendable (Bool) -> Void]) = state.withLock { state in
            var tally = Tally()
            let valid = verdicts.compactMap { verdict -> ReceivedEvent? in
                switch verdict {
                case .valid(let event): return event
                case .rejected(let rejection): tally.rejections.append(rejection); return nil
                }
            }
            if let batchID, state.seenBatchIDs.contains(batchID) {
                tally.isReplay = true
                tally.duplicates = valid.count
            } else {
                for event in valid {
                    if state.seenEventIDs.insert(event.eventID).inserted {
                        tally.accepted += 1
                        state.received.append(event)
                    } else {
                        tally.duplicates += 1
                    }
                }
                if let batchID { state.seenBatchIDs.insert(batchID) }
                state.summary.batches += 1
            }
            state.raw += valid
            state.summary.accepted += tally.accepted
            state.summary.duplicates += tally.duplicates
            state.summary.rejected += tally.rejections.count
            state.summary.rawEvents += valid.count
            if tally.isReplay { state.summary.replayedBatches += 1 }
            var request = request
            request.accepted = tally.accepted
            request.duplicates = tally.duplicates
            request.rejections = tally.rejections
            request.isReplay = tally.isReplay
            Self.record(request, in: &state)
            return (tally, state.takeSatisfied())
        }
        for resume in resumed { resume(true) }
        return tally
    }

    /// Records a request answered without counting anything.
    func record(_ request: RecordedRequest) {
        let resumed = state.withLock { state in
            Self.record(request, in: &state)
            return state.takeSatisfied()
        }
        for resume in resumed { resume(true) }
    }

    private static func record(_ request: RecordedRequest, in state: inout State) {
        state.requests.append(request)
        state.summary.requests += 1
        if request.responseDropped {
            state.summary.droppedResponses += 1
        } else {
            state.summary.byStatus[request.status, default: 0] += 1
        }
    }

    // MARK: Reading

    var receivedEvents: [ReceivedEvent] { state.withLock { $0.received } }
    var rawEvents: [ReceivedEvent] { state.withLock { $0.raw } }
    var requests: [RecordedRequest] { state.withLock { $0.requests } }
    var summary: LocalIngest.Summary { state.withLock { $0.summary } }

    // MARK: Waiting

    /// Suspends until `condition` holds for the summary, or `timeout` passes.
    /// - Returns: Whether the condition held (false on timeout or cancellation).
    func wait(timeout: Duration, until condition: @escaping @Sendable (LocalIngest.Summary) -> Bool) async -> Bool {
        let id: Int = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        let result = await withTaskGroup(of: Void.self) { group -> Bool in
            // The timer is a child task, so cancelling the waiting task cancels it too, which
            // ends the wait with `false` at once.
            group.addTask { [self] in
                try? await Task.sleep(for: timeout)
                expire(id)
            }
            let satisfied = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                enum Now { case satisfied, expired, waiting }
                let now: Now = state.withLock { state in
                    if condition(state.summary) { return .satisfied }
                    if state.expired.remove(id) != nil || state.waitsEnded { return .expired }
                    state.waiters[id] = Waiter(isSatisfied: condition) { continuation.resume(returning: $0) }
                    return .waiting
                }
                switch now {
                case .satisfied: continuation.resume(returning: true)
                case .expired: continuation.resume(returning: false)
                case .waiting: break
                }
            }
            group.cancelAll()
            return satisfied
        }
        // The timer may have fired after the waiter was satisfied; forget its mark.
        state.withLock { _ = $0.expired.remove(id) }
        return result
    }

    /// Blocks the calling thread until `condition` holds for the summary, or `timeout` passes.
    /// For code that cannot await: a thread of its own, or a test that holds every thread of
    /// the cooperative pool on purpose.
    /// - Returns: Whether the condition held (false on timeout or when the server stops).
    func blockingWait(timeout: Duration, until condition: @escaping @Sendable (LocalIngest.Summary) -> Bool) -> Bool {
        let signal = DispatchSemaphore(value: 0)
        let outcome = Locked(false)
        let id: Int? = state.withLock { state in
            if condition(state.summary) {
                outcome.withLock { $0 = true }
                return nil
            }
            if state.waitsEnded { return nil }
            defer { state.nextWaiterID += 1 }
            state.waiters[state.nextWaiterID] = Waiter(isSatisfied: condition) { satisfied in
                outcome.withLock { $0 = satisfied }
                signal.signal()
            }
            return state.nextWaiterID
        }
        guard let id else { return outcome.withLock { $0 } }
        if signal.wait(timeout: .after(timeout)) == .timedOut {
            // Gone already means it was resumed meanwhile: take that answer, after its signal.
            let removed = state.withLock { $0.waiters.removeValue(forKey: id) } != nil
            if removed { return false }
            signal.wait()
        }
        return outcome.withLock { $0 }
    }

    /// Ends waiter `id` with `false`, or marks it expired if it has not registered yet.
    private func expire(_ id: Int) {
        let waiter: Waiter? = state.withLock { state in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            state.expired.insert(id)
            return nil
        }
        waiter?.resume(false)
    }

    /// Ends every wait, present and future, with `false`; called when the server stops.
    func cancelAllWaits() {
        let waiters: [Waiter] = state.withLock { state in
            state.waitsEnded = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(false) }
    }
}
