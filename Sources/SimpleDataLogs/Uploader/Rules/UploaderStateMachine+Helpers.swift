import Foundation

/// The machine's small rules shared by the others: lines, timers, forgetting a batch.
extension UploaderStateMachine {
    // MARK: Helpers

    /// The debug line of one answer: the batch, what was heard, the round trip on the client's
    /// clock, and the batch's size.
    static func heardLine(_ outcome: AnswerPolicy.Outcome, batch: StoredBatch, roundTrip: Duration) -> String {
        let heard: String
        switch outcome {
        case .answered(let response): heard = "HTTP \(response.status)"
        case .failed(let error): heard = "no answer (\(error.description))"
        }
        return "Batch \(EventEncoder.lowercaseString(batch.id)): \(heard) after \(LogFormat.duration(roundTrip)) (\(batch.eventCount) events)."
    }

    /// Why a try failed, for the log and the report. Only 202 means accepted: a 2xx from
    /// something else (a relay, a proxy, a wrong endpoint) is not taken as delivery.
    static func failureReason(_ outcome: AnswerPolicy.Outcome) -> String {
        switch outcome {
        case .answered(let response) where (200..<300).contains(response.status):
            "HTTP \(response.status), not 202: is the endpoint the ingest itself?"
        case .answered(let response):
            "HTTP \(response.status)"
        case .failed(let error):
            error.description
        }
    }

    /// A failure in the round of one already counted: the round's wait stands, unless this
    /// answer's `Retry-After` asks for longer (the edge's word is obeyed, up to its 1-hour cap).
    /// - Returns: The wait from `now` until the next try.
    mutating func sameRound(resumeAt: Instant, retryAfter: Duration?, now: Instant, actions: inout [Action]) -> Duration {
        if let retryAfter {
            let asked = holdForRetryAfter(retryAfter, now: now)
            if now.advanced(by: asked) > resumeAt {
                self.resumeAt = now.advanced(by: asked)
                actions.append(startTimer(after: asked))
                actions.append(.log(.debug, "Next try in \(LogFormat.duration(asked)) (the ingest's Retry-After of \(LogFormat.duration(retryAfter)), longer than the round's wait)."))
                return asked
            }
        }
        let remaining = max(.zero, now.duration(to: resumeAt))
        actions.append(.log(.debug, "Next try in \(LogFormat.duration(remaining)) (this request was in flight when the round's failure was counted; counted once)."))
        return remaining
    }

    /// Holds every pass, flushes included, for what the edge's `Retry-After` asked (capped at
    /// 1 hour, scaled like every wait); a later, longer one moves the hold.
    /// - Returns: The wait asked for.
    @discardableResult
    mutating func holdForRetryAfter(_ retryAfter: Duration, now: Instant) -> Duration {
        var asked = min(max(retryAfter, .zero), Backoff.retryAfterCap)
        if backoffScale != 1 { asked = asked * backoffScale }
        let until = now.advanced(by: asked)
        if retryAfterUntil.map({ $0 < until }) ?? true { retryAfterUntil = until }
        return asked
    }

    /// A local fault (a file that cannot be read, halves the disk would not take) kept a batch
    /// back: a timer with its own backoff tries again, unless a backoff or probe timer runs.
    mutating func localRetry() -> [Action] {
        localFaultInPass = true
        let delay = readBackoff.recordFailure(retryAfter: nil, using: &random)
        guard resumeAt == nil, !probe.isPaused else { return [] }
        return [
            startTimer(after: delay),
            .log(.debug, "Next try of the batches kept back by the disk in \(LogFormat.duration(delay)) (\(readBackoff.consecutiveFailures) local fault(s) in a row)."),
        ]
    }

    /// One timer at a time: a newer one makes the older one's firing stale.
    mutating func startTimer(after delay: Duration) -> Action {
        timerGeneration += 1
        return .startTimer(after: delay, generation: timerGeneration)
    }

    /// A batch that left the queue (delivered, set aside, split, dropped, evicted) is out of the
    /// queue and has no failures to count.
    mutating func forget(_ id: UUID) {
        queue.remove(id)
        splitting.remove(id)
        failuresByBatch[id] = nil
        demoted.remove(id)
    }
}

extension UploaderStateMachine {
    /// The app rotated the key (`rotateIngestKey(to:)`): a 401 pause ends now, since it was the
    /// old key's, and the next pass probes the new one; a backoff or a `Retry-After` stays, since
    /// they were about the edge, not the key. Requests still in flight with the old key are told
    /// apart by ``keyGeneration``: their 401s send the batch again, with the new key.
    /// - Returns: The one line that says the pause ended (none when there was no pause).
    mutating func keyRotated() -> [Action] {
        keyGeneration += 1
        guard probe.isPaused else { return [] }
        let refused = probe.consecutiveUnauthorized
        probe.recordAccepted()
        return [.log(.info, "The ingest key was rotated; the pause for \(refused) 401 answer(s) ends, and the next request tries the new key.")]
    }
}
