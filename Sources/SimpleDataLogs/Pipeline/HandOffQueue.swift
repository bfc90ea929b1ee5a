/// The one hand-over between the pipeline's actors: an ordered queue of items under a lock,
/// read as an `AsyncSequence` whose element is *everything waiting*.
///
/// | | |
/// |---|---|
/// | element | `[Item]`: every item pushed since the consumer last looked, oldest first; never empty |
/// | buffering | unbounded: every push is kept (the intake's backlog bounds what can be in flight; see ``Pipeline``) |
/// | suspends | while nothing waits |
/// | ends | after ``finish()``, once every item pushed before it has been handed over |
///
/// Identity → sessions (chunks), sessions → outbox (``OutboxInput``: chunks, the sealer's
/// outcomes, timers), outbox → sealer (``SealerJob``s) all use it, and so does the uploader's
/// side. One consumer per queue; any number of producers on any thread.
///
/// Why everything waiting and not one element per wake-up (as an `AsyncStream` of elements
/// does): the consumer takes what arrived while it worked in one go, so the sealer makes all the
/// journals sealed meanwhile durable as one group, and the outbox writes every chunk that arrived
/// during a write with one `write(2)`; and a burst of pushes costs one thread wake-up, not one
/// each. Under the hood: the items under a ``Locked`` and a `bufferingNewest(1)` wake-up stream
/// (one pending wake-up covers any number of pushes).
final class HandOffQueue<Item: Sendable>: AsyncSequence, Sendable {
    /// Everything waiting, oldest first.
    typealias Element = [Item]
    /// Never fails: it ends.
    typealias Failure = Never

    private struct State: ParksWaiters {
        var items: [Item] = []
        /// A wake-up is on its way: more pushes need none until the consumer finds the queue empty.
        var wakePending = false
        /// ``finish()`` was called.
        var finished = false
        /// Tasks in ``waitForItems()``: a consumer busy elsewhere that wants to hear of the next
        /// push (the uploader while its requests are in flight). Almost always empty.
        var waiters = Waiters()
    }

    private let state = Locked(State())
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// One element when items arrive while the consumer is idle, or when ``wake()`` is called;
    /// `bufferingNewest(1)`, because one pending wake-up covers any number of items. Finishes
    /// after ``finish()``. The sequence itself (``makeAsyncIterator()``) reads it; a consumer
    /// that reads it directly takes the items with ``takeAll()``.
    let wakeUps: AsyncStream<Void>

    init() {
        (wakeUps, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Appends an item; wakes the consumer unless a wake-up is already on its way.
    func push(_ item: Item) {
        let (wakes, waiting): (Bool, Waiters.Released) = state.withLock { state in
            state.items.append(item)
            defer { state.wakePending = true }
            return (!state.wakePending, state.waiters.isEmpty ? [] : state.waiters.takeAll())
        }
        waiting.resume()
        if wakes { wakeContinuation.yield() }
    }

    /// Appends an item without waking the consumer: it is taken with whatever the next
    /// ``push(_:)`` or ``wake()`` wakes the consumer for. For work that may wait (memory to free),
    /// so that it never costs a thread wake-up of its own.
    func pushQuietly(_ item: Item) {
        state.withLock { $0.items.append(item) }
    }

    /// Wakes the consumer even when nothing was pushed (after ``pushQuietly(_:)``s that should go
    /// now). Always yields, so a wake-up sent while the consumer is busy is still seen after it:
    /// the stream keeps the newest one.
    func wake() {
        state.withLock { $0.items.isEmpty ? [] : $0.waiters.takeAll() }.resume()
        wakeContinuation.yield()
    }

    /// No more items: the sequence ends once every item pushed so far has been handed over.
    /// Items pushed later are still kept for ``takeAll()`` (the outbox drains the sealer's last
    /// outcomes so at `close`).
    func finish() {
        state.withLock { state in
            state.finished = true
            return state.waiters.takeAll()
        }.resume()
        wakeContinuation.finish()
    }

    /// Whether ``finish()`` was called.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Returns once an item waits (pushed, or woken after ``pushQuietly(_:)``), the queue is
    /// finished, or the calling task is cancelled; takes nothing. For a consumer that is
    /// waiting for something else as well (the uploader, for its requests' answers): it races
    /// this wait against the other in a task group, and reads the items with ``takeAll()``.
    /// The sequence's own wake-ups are untouched, so its iterator may stay suspended elsewhere.
    func waitForItems() async {
        await state.park { !$0.items.isEmpty || $0.finished }
    }

    /// Takes every waiting item, oldest first. Empty when nothing waits, and then the next
    /// push wakes the consumer again.
    func takeAll() -> [Item] {
        state.withLock { state in
            guard !state.items.isEmpty else {
                state.wakePending = false
                return []
            }
            defer { state.items = [] }
            return state.items
        }
    }

    /// Takes the waiting items that `matches`, oldest first, and leaves the others in place, in
    /// order, for the consumer's next look. For a consumer that must handle one kind of message
    /// now, in the middle of a step (the outbox applying the sealer's outcomes while it waits for
    /// them), without jumping ahead of the rest.
    func takeAll(where matches: (Item) -> Bool) -> [Item] {
        state.withLock { state in
            guard state.items.contains(where: matches) else { return [] }
            var taken: [Item] = []
            var kept: [Item] = []
            for item in state.items {
                if matches(item) { taken.append(item) } else { kept.append(item) }
            }
            state.items = kept
            return taken
        }
    }

    /// Iterates over what waits, one array per look: suspends while nothing waits.
    func makeAsyncIterator() -> Iterator {
        Iterator(queue: self, wakeUps: wakeUps.makeAsyncIterator())
    }

    /// Hands over everything waiting at each step.
    struct Iterator: AsyncIteratorProtocol {
        fileprivate let queue: HandOffQueue
        fileprivate var wakeUps: AsyncStream<Void>.Iterator

        /// Everything waiting, oldest first; suspends while nothing waits; `nil` once the queue
        /// is finished and drained.
        mutating func next() async -> [Item]? {
            await next(isolation: nil)
        }

        /// As ``next()``, staying on the caller's actor (the consumer's thread) while it waits.
        mutating func next(isolation actor: isolated (any Actor)?) async -> [Item]? {
            while true {
                let items = queue.takeAll()
                if !items.isEmpty { return items }
                // Empty: the next push wakes again (``takeAll()`` re-armed it). A wake-up with
                // nothing behind it (a ``wake()``, or one left from a drained push) loops.
                guard await wakeUps.next(isolation: actor) != nil else {
                    let last = queue.takeAll()
                    return last.isEmpty ? nil : last
                }
            }
        }
    }
}
