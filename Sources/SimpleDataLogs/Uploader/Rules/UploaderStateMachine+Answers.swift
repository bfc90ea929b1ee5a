import Foundation

/// What each answer means: the outbox's outcome, the words, the timers.
extension UploaderStateMachine {
    // MARK: Answers

    /// One batch's answer, through ``AnswerPolicy``.
    /// - Parameters:
    ///   - outcome: What the transport gave.
    ///   - attempt: What was sent (gzip, events, bytes).
    ///   - batch: The batch.
    ///   - sentAt: When the round's requests left (a 401 to a request sent before the last
    ///     counted one is not counted again).
    ///   - round: ``failureRound`` when the request left: a failure to a request that left
    ///     before the last counted failure is part of that failure's round.
    ///   - now: The clock's instant now.
    ///   - elapsed: From the request leaving to its outcome, for the debug line (the same span
    ///     the metric snapshots' round trip measures).
    ///   - wallNow: The wall clock now (for an HTTP-date `Retry-After`).
    ///   - keyGeneration: ``keyGeneration`` when the request left: a 401 to a key rotated away
    ///     since says nothing of the new key.
    ///
    /// Every answer gets one debug line (what was heard, and the round trip), placed after the
    /// outbox's action and before the others: the debug story of a batch is "sending", then
    /// "heard", then any decision; the warnings stay once per episode.
    mutating func answered(
        _ outcome: AnswerPolicy.Outcome, attempt: AnswerPolicy.Attempt, batch: StoredBatch,
        sentAt: Instant, sentInRound round: Int, now: Instant, elapsed: Duration, wallNow: Date, keyGeneration: Int? = nil
    ) -> Step {
        var step: Step
        if let keyGeneration, keyGeneration < self.keyGeneration, case .pauseForKey = AnswerPolicy.action(for: outcome, attempt: attempt, now: wallNow) {
            // Sent with the key the app rotated away: tried again in this pass, with the new key.
            pass?.tried.remove(batch.id)
            step = Step(actions: [], passGoesOn: true)
        } else {
            step = decide(outcome, attempt: attempt, batch: batch, sentAt: sentAt, round: round, now: now, wallNow: wallNow)
        }
        // The pass hears one of its requests: one place in flight is free, and an answer that
        // says to wait stops new requests.
        if var current = pass {
            current.inFlight = max(0, current.inFlight - 1)
            if !step.passGoesOn { current.goesOn = false }
            pass = current
        }
        let heard = Action.log(.debug, Self.heardLine(outcome, batch: batch, roundTrip: elapsed))
        step.actions.insert(heard, at: step.actions.first?.isOutboxCall == true ? 1 : 0)
        return step
    }

    /// The decision for one answer (``answered(_:attempt:batch:sentAt:sentInRound:now:elapsed:wallNow:)`` adds the
    /// debug line of what was heard).
    mutating func decide(
        _ outcome: AnswerPolicy.Outcome, attempt: AnswerPolicy.Attempt, batch: StoredBatch,
        sentAt: Instant, round: Int, now: Instant, wallNow: Date
    ) -> Step {
        let id = EventEncoder.lowercaseString(batch.id)
        switch AnswerPolicy.action(for: outcome, attempt: attempt, now: wallNow) {
        case .delete(let listed):
            forget(batch.id)
            // More rejections than events cannot be true: counted as the whole batch rejected
            // at most, never as a negative delivery (a 202 listing 4 for 2 events was reported
            // as "delivered −2").
            let rejected = Array(listed.prefix(batch.eventCount))
            var actions: [Action] = [.markDelivered(batch.id, rejected: rejected.count)]
            if listed.count > batch.eventCount, !excessRejectionsLogged {
                excessRejectionsLogged = true
                actions.append(.log(.warning, "The ingest's 202 for batch \(id) listed \(listed.count) rejections for \(batch.eventCount) events, which breaks the ingest API; counted \(batch.eventCount) rejected. Is the endpoint the ingest itself? Later such answers are counted, not logged."))
            }
            if case .answered(let response) = outcome, let problem = AnswerPolicy.unreadableBody(of: response), !unreadableAnswerLogged {
                unreadableAnswerLogged = true
                actions.append(.log(.warning, "The ingest accepted batch \(id) (202), but its answer could not be read (\(problem)); counted delivered, with any rejections unknown. Later such answers are counted, not logged."))
            }
            if backoff.consecutiveFailures > 0 || failureEpisodeLogged {
                actions.append(.log(.info, "The ingest answers again; delivered batch \(id) after \(backoff.consecutiveFailures) failed tries."))
            }
            if probe.isPaused {
                actions.append(.log(.info, "The ingest accepts the key again; uploads resumed after \(probe.consecutiveUnauthorized) 401 answer(s)."))
            }
            failureEpisodeLogged = false
            retryAfterUntil = nil
            backoff.recordSuccess()
            probe.recordAccepted()
            let reported = rejected.map { RejectedEvent(index: $0.index, eventID: $0.eventID, reason: $0.reason) }
            if let first = reported.first, !rejectionLogged {
                rejectionLogged = true
                actions.append(.log(.warning, "The ingest rejected \(reported.count) event(s) of batch \(id) (first: \(first.reason)); they are counted and never resent. Later rejections are counted, not logged."))
            }
            actions.append(.publish(.delivered(batchID: batch.id, delivered: batch.eventCount - reported.count, rejected: reported)))
            return Step(actions: actions, passGoesOn: true)

        case .pauseForKey:
            let decision = probe.recordUnauthorized(at: now, sentAt: sentAt)
            let wait = now.duration(to: decision.nextProbe)
            var actions: [Action] = []
            if decision.logsConfigurationError {
                actions.append(.log(.error, "401 from the ingest: the key is unknown or not live yet. Pausing uploads; next probe in \(Int(wait.components.seconds)) s, then every 10 minutes. Events stay on disk. Check the key in configure."))
            } else {
                actions.append(.log(.debug, "Still paused for the key; next probe in \(LogFormat.duration(wait))."))
            }
            actions.append(startTimer(after: wait))
            actions.append(.publish(.pausedForKey(nextProbeAfter: wait)))
            return Step(actions: actions, passGoesOn: false)

        case .split:
            splitting.insert(batch.id)
            return Step(actions: [.split(batch.id)], passGoesOn: true)

        case .dropTooLarge:
            forget(batch.id)
            return Step(actions: [
                .dropTooLarge(batch.id),
                .log(.warning, "The ingest refused a single event as too large (413); dropped it. Send fewer or shorter properties."),
                .publish(.dropped(batchID: batch.id, events: batch.eventCount, reason: "too large (413)")),
            ], passGoesOn: true)

        case .resendUncompressed:
            // The uploader resends a gzip body uncompressed itself; reaching here means the
            // uncompressed try also said 415.
            return Step(actions: [], passGoesOn: true)

        case .setAside(let reason):
            forget(batch.id)
            let text: String
            switch reason {
            case .malformedBody(let message): text = "400 \(message ?? "bad body")"
            case .unsupportedMediaType(let message): text = "415 \(message ?? "unsupported media type")"
            }
            return Step(actions: [
                .setAside(batch.id),
                .log(.warning, "The ingest refused batch \(id) (\(text)); set it aside on disk and moved on. `sdl outbox requeue` sends it again."),
                .publish(.setAside(batchID: batch.id, events: batch.eventCount, reason: text)),
            ], passGoesOn: true)

        case .backOff(let retryAfter):
            var actions: [Action] = []
            let failures = failuresByBatch[batch.id, default: 0] + 1
            failuresByBatch[batch.id] = failures
            if failures >= Self.demotionThreshold, demoted.insert(batch.id).inserted {
                actions.append(.log(.warning, "Batch \(id) failed \(failures) times in a row; the batches behind it are tried first from now on, and it keeps being retried after them."))
            }
            let reason = Self.failureReason(outcome)
            if !failureEpisodeLogged {
                failureEpisodeLogged = true
                actions.append(.log(.warning, "Could not deliver to the ingest (\(reason)); retrying with backoff. Events stay on disk."))
            }
            let delay: Duration
            if round < failureRound, let resumeAt {
                // In flight when the round's first failure was counted: the same outage, not a
                // new failure. Counting it too made one round of 4 refusals failures 5 to 8, and
                // its fresh random wait replaced the round's (minutes after a short outage).
                delay = sameRound(resumeAt: resumeAt, retryAfter: retryAfter, now: now, actions: &actions)
            } else {
                var drawn = backoff.recordFailure(retryAfter: retryAfter, using: &random)
                if backoffScale != 1 { drawn = drawn * backoffScale }
                failureRound += 1
                delay = drawn
                resumeAt = now.advanced(by: delay)
                if let retryAfter { holdForRetryAfter(retryAfter, now: now) }
                actions.append(startTimer(after: delay))
                let why = retryAfter.map { "the ingest's Retry-After of \(LogFormat.duration($0))" }
                    ?? "backoff after \(backoff.consecutiveFailures) failed tries in a row"
                actions.append(.log(.debug, "Next try in \(LogFormat.duration(delay)) (\(why))."))
            }
            actions.append(.publish(.willRetry(batchID: batch.id, after: delay, reason: reason)))
            return Step(actions: actions, passGoesOn: false)
        }
    }

    /// The outbox's answer to a ``Action/split(_:)``: the halves (which take the parent's place
    /// in the queue), or nil when the disk refused them (logged by the outbox). A refused split keeps the parent queued and retries later
    /// under the local-fault backoff; the batches behind it go on.
    mutating func splitEnded(_ batch: StoredBatch, halves: (StoredBatch, StoredBatch)?) -> [Action] {
        splitting.remove(batch.id)
        guard let (left, right) = halves else { return localRetry() }
        forget(batch.id)
        apply([.joined([left, right])])
        return [.publish(.split(batchID: batch.id, into: [left.id, right.id]))]
    }

    /// The outbox's answer to a split, by the parent's id (``UploaderInput/splitEnded(parent:halves:)``);
    /// nothing when the parent is no longer queued (evicted meanwhile).
    mutating func splitEnded(parent id: UUID, halves: [StoredBatch]?) -> [Action] {
        guard let parent = queue.batch(id) else {
            splitting.remove(id)
            if let halves { apply([.joined(halves)]) }
            return []
        }
        if let halves, halves.count == 2 { return splitEnded(parent, halves: (halves[0], halves[1])) }
        return splitEnded(parent, halves: nil)
    }
}
