import Dispatch
import Foundation
import Testing
import SimpleDataLogs

/// How long a test waits, in real time, for something that normally comes within seconds: a
/// child process's line or exit, an answer from the local ingest, the client's threads catching
/// up. Far above any honest wait, even under ThreadSanitizer (10 times slower) on a loaded 2-core
/// machine; a wait that reaches it is stuck, and the test fails saying what it waited for instead
/// of hanging the whole run.
let testWaitLimit: Duration = .seconds(120)

/// A wait that did not end within its time limit; its description names what was waited for.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "timed out after \(limit) (real time) waiting for \(what)" }
}

/// Waits for `operation` at most `limit` of real time.
///
/// The operation runs in a task of its own. Past the limit that task is cancelled but not waited
/// for, and this throws ``TimedOut``: a wait that ignores cancellation (a continuation nobody
/// resumes, `task.value` of a task that never ends, a shutdown bounded only by a manual clock)
/// still ends the test. The timer runs on a Dispatch queue, so it fires however busy the
/// cooperative pool is. Cancelling the caller cancels the operation.
/// - Parameters:
///   - limit: How long to wait at most (real time).
///   - what: What is waited for, in words, for the failure message.
///   - operation: The wait.
/// - Returns: What the operation returned.
func withTimeLimit<T: Sendable>(
    _ limit: Duration = testWaitLimit, waitingFor what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let wait = BoundedWait<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            // Created here, so the worker inherits this task's task-local values (Swift Testing
            // finds the current test through them when the operation records an issue).
            let worker = Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                wait.finish(with: result)
            }
            wait.start(continuation, worker: worker)
            DispatchQueue.global().asyncAfter(deadline: .after(limit)) {
                wait.finish(with: .failure(TimedOut(what: what, limit: limit)))
            }
        }
    } onCancel: {
        wait.cancel()
    }
}

/// The state of one ``withTimeLimit(_:waitingFor:_:)``: whichever of the operation and the timer
/// comes first resumes the caller; the other finds nothing left to do.
private final class BoundedWait<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var worker: Task<Void, Never>?
        var result: Result<T, any Error>?
        var isFinished = false
        var cancelled = false
    }

    private let state = Locked(State())

    /// Called once, with the caller suspended: resumes at once if the worker already finished.
    func start(_ continuation: CheckedContinuation<T, any Error>, worker: Task<Void, Never>) {
        let (finished, cancelled): (Result<T, any Error>?, Bool) = state.withLock { state in
            state.worker = worker
            if let result = state.result { return (result, state.cancelled) }
            state.continuation = continuation
            return (nil, state.cancelled)
        }
        if cancelled { worker.cancel() }
        if let finished { continuation.resume(with: finished) }
    }

    /// The first call resumes the caller; a timeout also cancels the worker.
    func finish(with result: Result<T, any Error>) {
        let (continuation, worker): (CheckedContinuation<T, any Error>?, Task<Void, Never>?) = state.withLock { state in
            guard !state.isFinished else { return (nil, nil) }
            state.isFinished = true
            state.result = result
            defer { state.continuation = nil }
            return (state.continuation, state.worker)
        }
        if case .failure(let error) = result, error is TimedOut { worker?.cancel() }
        continuation?.resume(with: result)
    }

    /// The caller was cancelled: so is the worker, which decides what comes back.
    func cancel() {
        let worker = state.withLock { state in
            state.cancelled = true
            return state.worker
        }
        worker?.cancel()
    }
}

/// The next element of `sequence`, or nil when it ends, waited for at most `limit` (real time).
/// For report streams and signals a test reads one element at a time: each read starts a new
/// iterator, which for an `AsyncStream` goes on where the last one stopped.
/// - Throws: ``TimedOut`` naming `what` when nothing came within `limit`.
func nextElement<Sequence: AsyncSequence & Sendable>(
    of sequence: Sequence, within limit: Duration = testWaitLimit, waitingFor what: String
) async throws -> Sequence.Element? where Sequence.Element: Sendable {
    try await withTimeLimit(limit, waitingFor: what) {
        var iterator = sequence.makeAsyncIterator()
        return try await iterator.next()
    }
}

extension Trait where Self == TimeLimitTrait {
    /// The backstop every suite carries: a test still running after 10 minutes records an issue
    /// that names it, and its task is cancelled, which ends every wait that honours cancellation
    /// (and every ``withTimeLimit(_:waitingFor:_:)``). It cannot end a wait that ignores
    /// cancellation, nor fire while every thread of the cooperative pool is blocked: those waits
    /// carry bounds of their own. Far above any honest test, even under ThreadSanitizer on a
    /// loaded machine, and well inside CI's 20-minute stage.
    static var stuckTestLimit: Self { .timeLimit(.minutes(10)) }
}
