/// The sessions stage's hand-over to the outbox: an ordered queue of chunks under a lock, plus a
/// wake-up stream, the same pattern as the intake.
///
/// Why not an `AsyncStream` of chunks: the outbox needs to know whether another chunk is already
/// waiting. While one is, it keeps its full batches pending and makes them durable with the next
/// chunk's (one flush of the disk for several chunks; DESIGN.md, "Sealing"). A stream cannot say
/// whether it holds elements, and a counter kept beside it could drift from it; here the chunks
/// and that answer are one piece of state.
final class ChunkQueue: Sendable {
    private struct State: Sendable {
        var chunks: [[PipelineItem]] = []
        var head = 0
        /// A wake-up is on its way: more pushes need none until the consumer finds the queue empty.
        var wakePending = false
    }

    private let state = Locked(State())
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// One element when chunks arrive while the consumer is idle; `bufferingNewest(1)`, because
    /// one pending wake-up covers any number of chunks. Finishes after ``finish()``.
    let wakeUps: AsyncStream<Void>

    init() {
        (wakeUps, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Appends a chunk; wakes the consumer unless a wake-up is already on its way.
    func push(_ chunk: [PipelineItem]) {
        let wakes: Bool = state.withLock { state in
            state.chunks.append(chunk)
            defer { state.wakePending = true }
            return !state.wakePending
        }
        if wakes { wakeContinuation.yield() }
    }

    /// No more chunks: the consumer's wake-ups end once it has been woken for every chunk pushed.
    func finish() {
        wakeContinuation.finish()
    }

    /// Takes the oldest chunk, and says whether another one is already waiting behind it. Nil
    /// when the queue is empty, and then the next push wakes the consumer again.
    func pop() -> (chunk: [PipelineItem], moreWaiting: Bool)? {
        state.withLock { state in
            guard state.head < state.chunks.count else {
                state.wakePending = false
                return nil
            }
            let chunk = state.chunks[state.head]
            state.head += 1
            let moreWaiting = state.head < state.chunks.count
            if !moreWaiting {
                // Emptied: the storage is kept for the next burst.
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return (chunk, moreWaiting)
        }
    }
}
