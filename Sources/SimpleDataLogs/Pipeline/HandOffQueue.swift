/// An ordered hand-over from one stage to the next: the elements under a lock, plus a wake-up
/// stream, the same pattern as the intake. The sessions stage hands chunks to the outbox through
/// one; the outbox hands disk work to its sealer through another.
///
/// Why not an `AsyncStream` of elements: the consumer takes everything waiting at once
/// (``takeAll()``), so the sealer makes all the journals sealed meanwhile durable as one group,
/// and the outbox journals every chunk that arrived during a write before it looks again. A
/// stream hands over one element per wake-up and cannot say whether more are waiting.
final class HandOffQueue<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var elements: [Element] = []
        /// A wake-up is on its way: more pushes need none until the consumer finds the queue empty.
        var wakePending = false
    }

    private let state = Locked(State())
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// One element when elements arrive while the consumer is idle, or when ``wake()`` is
    /// called; `bufferingNewest(1)`, because one pending wake-up covers any number of elements.
    /// Finishes after ``finish()``.
    let wakeUps: AsyncStream<Void>

    init() {
        (wakeUps, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Appends an element; wakes the consumer unless a wake-up is already on its way.
    func push(_ element: Element) {
        let wakes: Bool = state.withLock { state in
            state.elements.append(element)
            defer { state.wakePending = true }
            return !state.wakePending
        }
        if wakes { wakeContinuation.yield() }
    }

    /// Appends an element without waking the consumer: it is taken with whatever the next
    /// ``push(_:)`` or ``wake()`` wakes the consumer for. For work that may wait (memory to free),
    /// so that it never costs a thread wake-up of its own.
    func pushQuietly(_ element: Element) {
        state.withLock { $0.elements.append(element) }
    }

    /// Wakes the consumer even when nothing was pushed: something it watches beside the queue
    /// changed (the sealer's outcomes, for the outbox). Always yields, so a wake-up sent while
    /// the consumer is busy is still seen after it: the stream keeps the newest one.
    func wake() {
        wakeContinuation.yield()
    }

    /// No more elements: the consumer's wake-ups end once it has been woken for every push.
    func finish() {
        wakeContinuation.finish()
    }

    /// Takes every waiting element, oldest first. Empty when nothing waits, and then the next
    /// push wakes the consumer again.
    func takeAll() -> [Element] {
        state.withLock { state in
            guard !state.elements.isEmpty else {
                state.wakePending = false
                return []
            }
            defer { state.elements = [] }
            return state.elements
        }
    }
}
