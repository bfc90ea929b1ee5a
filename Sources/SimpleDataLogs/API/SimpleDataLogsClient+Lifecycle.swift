extension SimpleDataLogsClient {
    /// Sends everything now and returns when that attempt ends.
    ///
    /// Every event tracked before the call is in the journal when this returns. Undelivered
    /// events stay on disk. It ignores a backoff the client chose after a failure, but not a
    /// `Retry-After` from the ingest: while one runs, it sends nothing and returns at once, and
    /// the batches go when the ingest said (the result's `remaining` counts them). If the calling task is cancelled it returns at once; the data is
    /// safe on disk either way. Before `configure` there is nothing to send, and it returns at once.
    ///
    /// A middleware step that blocks holds every event behind it, and this call waits for them:
    /// it returns when the step does, when the calling task is cancelled, or when
    /// ``shutdown(timeLimit:)`` gives up on the step at its time limit. A flush that overlaps a
    /// shutdown returns once the shutdown has ended (within its time limit), so its result
    /// counts what the shutdown dropped or kept, not a moment in between.
    /// - Returns: What was delivered and what remains.
    @discardableResult
    public func flush() async -> FlushResult {
        let delivered = counters.delivered
        await journalEverythingTrackedSoFar()
        if !Task.isCancelled { await pipeline?.flushOnce() }
        // The shutdown settles its counts (the events it dropped) before it ends.
        await pipeline?.waitForShutdownIfStarted()
        let after = counters
        return FlushResult(delivered: after.delivered - delivered, remaining: after.pending)
    }

    /// Ignores new events at once, sends what is queued within `timeLimit`, then turns
    /// collection off and deletes whatever did not make it.
    ///
    /// A cancelled caller does not cut it short: the send is bounded by `timeLimit` alone, and
    /// collection is off when it returns either way. While the ingest's `Retry-After` runs, no
    /// send is made (see ``flush()``).
    /// - Parameter timeLimit: How long the last send may take; 10 seconds by default.
    public func flushAndDisable(timeLimit: Duration = .seconds(10)) async {
        intake.stopAccepting()
        // A task of its own, so that the caller's cancellation reaches neither the barrier nor
        // the send; it is awaited, never left running.
        await Task { [self] in
            await journalEverythingTrackedSoFar()
            if let pipeline {
                await pipeline.withTimeLimit(timeLimit) { await pipeline.flushOnce(lastChance: true) }
            }
            setEnabled(false)
            await journalEverythingTrackedSoFar()
        }.value
    }

    /// Reports of what happens to each batch, for this subscriber alone: delivered (with the
    /// events the ingest rejected), set aside, dropped, split, retried, paused.
    ///
    /// The sequence buffers at most `limit` reports; a subscriber that falls behind loses the
    /// oldest (counted in ``DeliveryReports/droppedCount``), so it never slows the uploader. It
    /// finishes when the client shuts down. Subscribe after `configure`; before it, the sequence
    /// is empty and finished.
    /// - Parameter limit: How many reports to hold for a slow reader.
    /// - Returns: The reports.
    public func deliveryReports(bufferingNewest limit: Int = 1_000) -> DeliveryReports {
        guard let pipeline else {
            let (stream, continuation) = AsyncStream.makeStream(of: DeliveryReport.self)
            continuation.finish()
            return DeliveryReports(stream: stream, dropped: Locked(0))
        }
        return pipeline.reports.subscribe(bufferingNewest: limit)
    }

    /// The completion-handler form of ``flushAndDisable(timeLimit:)``, for code that is not async.
    /// - Parameters:
    ///   - timeLimit: How long the last send may take.
    ///   - completion: Called once, on an arbitrary thread, when collection is off.
    public func flushAndDisable(timeLimit: Duration = .seconds(10), completion: @escaping @Sendable () -> Void) {
        Task {
            await flushAndDisable(timeLimit: timeLimit)
            completion()
        }
    }

    /// Stops intake, journals every queued event, tries one send within `timeLimit`, and keeps
    /// the rest on disk for the next start. For command-line tools and servers; the client takes
    /// no more events afterwards.
    ///
    /// The whole shutdown is bounded by `timeLimit`, not by the caller's cancellation: a server
    /// whose shutdown runs in a cancelled task (a service group tearing down, a `withClient` scope
    /// left by cancellation) still gets its last send, and the call returns within about
    /// `timeLimit` even when the ingest never answers. Calls made while a shutdown runs wait for
    /// that one. While the ingest's `Retry-After` runs, no send is made (see ``flush()``); the
    /// events stay on disk for the next start.
    ///
    /// The limit covers the ``Configuration/middleware`` steps too: every queued event passes
    /// them before the journal, so a slow step behind a long queue could outlast any grace
    /// period. When the limit runs out first, the steps get no more events, and what has not
    /// reached the journal is dropped, never written unseen by the steps, and counted in
    /// ``DeliveryCounters/droppedAtShutdown`` with one log line. A step that never returns keeps
    /// the SDK's stages thread until it does (a thread cannot be stopped from outside); the call
    /// returns all the same, about 100 ms past the limit at most.
    /// - Parameter timeLimit: How long the shutdown may take, the middleware's work on queued
    ///   events and the last send included; 5 seconds by default. With `.zero` no send is
    ///   started and everything journaled stays on disk for the next start (with middleware,
    ///   events the steps have not seen are dropped and counted).
    public func shutdown(timeLimit: Duration = .seconds(5)) async {
        let pipeline = markShutDown()
        intake.shutDown()
        await pipeline?.shutDown(timeLimit: timeLimit) { [self] in
            let counters = counters
            // Events still in memory at this point had no folder to go to: lost with the process.
            let lost = counters.pendingInMemory > 0 ? ", \(counters.pendingInMemory) in memory only (no storage folder), lost at exit" : ""
            logger.info("Shut down: \(counters.delivered) events delivered since launch, \(counters.pendingOnDisk) kept on disk for the next start\(lost), \(counters.setAside) set aside.")
        }
        // After the last send: each metric snapshot sequence yields the final counters and ends.
        await metrics.finish()
    }

    /// Runs the client for as long as the calling task lives, for structured-concurrency apps and
    /// servers that stop their work by cancelling it: the owner awaits it, and when its task is
    /// cancelled it returns after a bounded ``shutdown(timeLimit:)``, which the cancellation does
    /// not cut short.
    ///
    /// A server whose lifecycle stops services without cancelling them (swift-service-lifecycle's
    /// graceful shutdown) uses ``run(until:shutdownTimeLimit:)`` instead.
    /// - Parameter shutdownTimeLimit: How long the last send may take; 5 seconds by default.
    public func run(shutdownTimeLimit: Duration = .seconds(5)) async {
        await Self.untilCancelled()
        await shutdown(timeLimit: shutdownTimeLimit)
    }

    /// Runs the client until `trigger` returns or the calling task is cancelled, whichever comes
    /// first, then shuts it down within `shutdownTimeLimit`: the way to tie the client to a
    /// server's own shutdown signal without a dependency.
    ///
    /// With swift-service-lifecycle, the trigger is its graceful shutdown:
    ///
    /// ```swift
    /// struct AnalyticsService: Service {
    ///     let client: SimpleDataLogsClient
    ///     func run() async throws {
    ///         await client.run(until: { try? await gracefulShutdown() })
    ///     }
    /// }
    /// ```
    ///
    /// `trigger` runs in a child task, so it sees the caller's task-local values (where
    /// service-lifecycle keeps its shutdown signal), and it is cancelled once the client stops
    /// waiting: it must return when cancelled, as `gracefulShutdown()` does.
    /// - Parameters:
    ///   - trigger: Returns when the client should shut down.
    ///   - shutdownTimeLimit: How long the last send may take; 5 seconds by default.
    public func run(until trigger: @escaping @Sendable () async -> Void, shutdownTimeLimit: Duration = .seconds(5)) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await trigger() }
            group.addTask { await Self.untilCancelled() }
            await group.next()
            group.cancelAll()
        }
        await shutdown(timeLimit: shutdownTimeLimit)
    }

    /// Suspends until the calling task is cancelled, holding no thread.
    private static func untilCancelled() async {
        let (cancelled, signal) = AsyncStream.makeStream(of: Void.self)
        await withTaskCancellationHandler {
            for await _ in cancelled {}
        } onCancel: {
            signal.finish()
        }
    }

    /// Waits until every event tracked before the call has reached the journal (or was dropped).
    /// Also returns when shutdown gives up on a middleware step blocked past its time limit
    /// (the events behind it are then counted as dropped at shutdown), or when the calling task
    /// is cancelled.
    func journalEverythingTrackedSoFar() async {
        guard let pipeline else { return }
        let barrier = Barrier()
        intake.enqueue(.barrier(barrier))
        await pipeline.waitForBarrier(barrier)
    }
}

extension SimpleDataLogsClient {
    /// Runs `operation` with a configured client and shuts it down on every way out: return,
    /// throw or cancellation. For scripts, jobs and tests that want the client's lifetime to be
    /// a scope. The shutdown's last send is bounded by `shutdownTimeLimit` alone, even when the
    /// scope is left because its task was cancelled.
    ///
    /// ```swift
    /// try await SimpleDataLogsClient.withClient(.init(ingestKey: "sdl_sec_…")) { analytics in
    ///     analytics.track("job_finished", properties: ["rows": 1_200])
    /// }
    /// ```
    /// - Parameters:
    ///   - configuration: How to configure the client.
    ///   - shutdownTimeLimit: How long the last send may take on the way out.
    ///   - isolation: The caller's actor, inherited so `operation` needs not be `Sendable`.
    ///   - operation: The work, given the client.
    /// - Returns: What `operation` returns.
    public static func withClient<Result>(
        _ configuration: Configuration,
        shutdownTimeLimit: Duration = .seconds(5),
        isolation: isolated (any Actor)? = #isolation,
        operation: (SimpleDataLogsClient) async throws -> Result
    ) async rethrows -> Result {
        let client = SimpleDataLogsClient()
        client.configure(configuration)
        do {
            let result = try await operation(client)
            await client.shutdown(timeLimit: shutdownTimeLimit)
            return result
        } catch {
            await client.shutdown(timeLimit: shutdownTimeLimit)
            throw error
        }
    }
}
