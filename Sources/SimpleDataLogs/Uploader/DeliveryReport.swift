public import Foundation

/// What happened to one batch, as the delivery reports tell it.
public enum DeliveryReport: Sendable, Hashable {
    /// The ingest accepted the batch (202): `delivered` events counted, `rejected` ones listed.
    case delivered(batchID: UUID, delivered: Int, rejected: [RejectedEvent])
    /// The batch was set aside after a 400 or a 415 to an uncompressed body; kept on disk.
    case setAside(batchID: UUID, events: Int, reason: String)
    /// The batch's events were dropped: a single event too large for any request.
    case dropped(batchID: UUID, events: Int, reason: String)
    /// The batch was split in half after a 413; the halves are sent next.
    case split(batchID: UUID, into: [UUID])
    /// The try failed (no answer, or an answer that calls for a retry); the batch stays on disk.
    case willRetry(batchID: UUID, after: Duration, reason: String)
    /// The ingest refused the key (401); sending is paused until the next probe.
    case pausedForKey(nextProbeAfter: Duration)
}

/// One event the ingest listed in a 202's `rejected`: it will never be accepted and is not resent.
public struct RejectedEvent: Sendable, Hashable {
    /// Its position in the batch, when the ingest gave it.
    public var index: Int?
    /// Its `event_id`, when the ingest echoed it.
    public var eventID: String?
    /// Why the ingest rejected it.
    public var reason: String
}

/// A stream of ``DeliveryReport``s for one subscriber, from ``SimpleDataLogsClient/deliveryReports(bufferingNewest:)``.
///
/// Buffered with a bound: a subscriber that falls behind loses the oldest reports (counted in
/// ``droppedCount``), so a slow reader never slows the uploader. It finishes when the client
/// shuts down.
public struct DeliveryReports: AsyncSequence, Sendable {
    /// The reports.
    public typealias Element = DeliveryReport

    let stream: AsyncStream<DeliveryReport>
    let dropped: Locked<Int>

    /// How many reports this subscriber lost because its buffer was full.
    public var droppedCount: Int { dropped.withLock { $0 } }

    /// Iterates over the reports.
    public func makeAsyncIterator() -> AsyncStream<DeliveryReport>.Iterator { stream.makeAsyncIterator() }
}

/// Fans reports out to every subscriber; never blocks the uploader.
final class DeliveryReportHub: Sendable {
    private struct Subscriber: Sendable {
        var continuation: AsyncStream<DeliveryReport>.Continuation
        var dropped: Locked<Int>
    }

    private struct State: Sendable {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var finished = false
        var published = 0
    }

    private let state = Locked(State())

    /// A new subscriber's stream; one that subscribes after ``finish()`` gets a stream that is
    /// already finished (it used to wait forever).
    func subscribe(bufferingNewest limit: Int) -> DeliveryReports {
        let (stream, continuation) = AsyncStream.makeStream(of: DeliveryReport.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let dropped = Locked(0)
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = Subscriber(continuation: continuation, dropped: dropped)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return DeliveryReports(stream: stream, dropped: dropped)
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return DeliveryReports(stream: stream, dropped: dropped)
    }

    /// How many reports were published so far: the tests' window on the order of publishing.
    var publishedCount: Int { state.withLock { $0.published } }

    func publish(_ report: DeliveryReport) {
        let current = state.withLock { state in
            state.published += 1
            return Array(state.subscribers.values)
        }
        for subscriber in current {
            if case .dropped = subscriber.continuation.yield(report) {
                subscriber.dropped.withLock { $0 += 1 }
            }
        }
    }

    func finish() {
        let current = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in current { subscriber.continuation.finish() }
    }
}
