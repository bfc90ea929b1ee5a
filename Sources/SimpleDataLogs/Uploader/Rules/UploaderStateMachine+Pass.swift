import Foundation

/// The pass: which batches go next, what was tried, what is in flight, what is read ahead.
extension UploaderStateMachine {
    /// One pass over the queue: what it tried, how many of its requests are in flight, whether
    /// an answer said to stop starting new ones, and the batches it could not read.
    struct Pass: Sendable, Equatable {
        /// Every batch taken in this pass, sent or not: none is taken twice (one that cannot be
        /// read was, and the pass spun a core forever).
        var tried: Set<UUID> = []
        var inFlight = 0
        /// False once an answer said to wait (a backoff, a 401): the requests in flight are
        /// still heard, no new one starts.
        var goesOn = true
        /// Batches kept back by a local fault (unreadable, or not the batch queued under the
        /// name), reported at the pass's end.
        var keptBack: [KeptBack] = []
    }

    /// A batch a pass could not send for a local reason.
    struct KeptBack: Sendable, Equatable {
        var batch: StoredBatch
        var error: FileSystemError
    }

    /// Where the uploader is. Backing off and paused for the key are not exclusive (a 401 during
    /// a backoff): ``resumeAt`` and ``probe`` hold them, and this names the one that holds the next
    /// pass back, a pass under way first.
    enum State: Sendable, Equatable {
        case idle
        /// A pass is under way: requests in flight, the next batches read ahead.
        case sending(Pass)
        /// No pass but a flush starts before `until`.
        case backingOff(until: Instant)
        /// No pass but a last-chance flush starts before the key's probe is due.
        case pausedForKey
    }

    var state: State {
        if let pass { return .sending(pass) }
        if probe.isPaused { return .pausedForKey }
        if let resumeAt { return .backingOff(until: resumeAt) }
        return .idle
    }

    // MARK: Passes

    /// A pass begins; while a 401 pause holds, this pass is the key's probe, and says so at debug.
    mutating func beginPass() -> [Action] {
        pass = Pass()
        localFaultInPass = false
        guard probe.isPaused else { return [] }
        return [.log(.debug, "Probing the key: the oldest batch goes again after \(probe.consecutiveUnauthorized) 401 answer(s).")]
    }

    /// The next round of a pass: batches not yet tried in it, oldest first with demoted ones
    /// after the others, at most ``maxConcurrentRequests``.
    ///
    /// Reads the queue only as far as the round needs (past the batches in flight, at its
    /// front): a round is asked for at every free place, and the queue may hold 100,000 batches.
    func nextRound(tried: Set<UUID>) -> [StoredBatch] {
        var round: [StoredBatch] = []
        for batch in queue where !tried.contains(batch.id) && !demoted.contains(batch.id) && !splitting.contains(batch.id) {
            round.append(batch)
            if round.count == maxConcurrentRequests { return round }
        }
        guard !demoted.isEmpty else { return round }
        for batch in queue where !tried.contains(batch.id) && demoted.contains(batch.id) && !splitting.contains(batch.id) {
            round.append(batch)
            if round.count == maxConcurrentRequests { break }
        }
        return round
    }

    /// The next batch to send in this pass, marked tried: the oldest not tried yet (demoted ones
    /// after the others), while the pass goes on and a place in flight is free; nil otherwise.
    /// - Parameter mayStart: Whether the uploader may start a request now (online, collecting).
    mutating func takeNext(mayStart: Bool = true) -> StoredBatch? {
        guard mayStart, let current = pass, current.goesOn, current.inFlight < maxConcurrentRequests,
              let batch = nextRound(tried: current.tried).first else { return nil }
        pass?.tried.insert(batch.id)
        return batch
    }

    /// The batch taken by ``takeNext(mayStart:)`` left as a request.
    /// - Returns: ``failureRound`` now, which the request carries to its answer.
    mutating func requestLeft() -> Int {
        pass?.inFlight += 1
        return failureRound
    }

    /// The batch taken by ``takeNext(mayStart:)`` could not be read now: kept back, reported at
    /// the pass's end.
    mutating func keptBack(_ batch: StoredBatch, error: FileSystemError) {
        pass?.keptBack.append(KeptBack(batch: batch, error: error))
    }

    /// The batches to read ahead while requests are in flight: the next round, as long as the
    /// pass goes on.
    var readAheadCandidates: [StoredBatch] {
        guard let pass, pass.goesOn else { return [] }
        return nextRound(tried: pass.tried)
    }

    /// Whether the pass waits for answers to requests in flight.
    var awaitsAnswers: Bool { (pass?.inFlight ?? 0) > 0 }

    /// Whether a batch queued now would leave at once: the pass goes on and a place in flight is
    /// free. While this holds and requests are in flight, the uploader listens for new batches
    /// as well as for answers, so a batch sealed during a slow answer does not wait for it.
    var hasFreePlace: Bool {
        guard let pass, pass.goesOn else { return false }
        return pass.inFlight < maxConcurrentRequests
    }

    /// The pass ends: what it kept back is reported (``passEnded(unreadable:)``).
    mutating func endPass() -> [Action] {
        let keptBack = pass?.keptBack ?? []
        pass = nil
        return passEnded(unreadable: keptBack.map { ($0.batch, $0.error) })
    }

    /// A pass ended. Batches whose files could not be read stay queued: one warning per episode,
    /// and a timer with its own backoff (unless a backoff or probe timer runs), so a local fault
    /// neither blocks the batches behind it nor spins. A pass with no local fault ends the episode.
    mutating func passEnded(unreadable: [(batch: StoredBatch, error: FileSystemError)]) -> [Action] {
        guard let first = unreadable.first else {
            // One whose split the disk refused keeps its backoff growing, so a full disk is not
            // retried every second.
            if !localFaultInPass {
                if readBackoff.consecutiveFailures > 0 { readBackoff.recordSuccess() }
                unreadableLogged = false
            }
            return []
        }
        var actions: [Action] = []
        if !unreadableLogged {
            unreadableLogged = true
            actions.append(.log(.warning, "Could not read \(unreadable.count) batch file(s) to send (first: \(first.batch.fileName): \(first.error)); kept, and tried again later. The batches behind them are sent meanwhile."))
        }
        return actions + localRetry()
    }
}
