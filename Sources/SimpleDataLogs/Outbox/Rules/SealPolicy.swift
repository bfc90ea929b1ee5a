/// When the open batch is sealed: pure rules, tested without files or clocks.
///
/// A batch is sealed when it holds `maxEvents` events, when one more event would take the request
/// body over 256 KiB (that event starts the next batch), or `maxAge` after its first event.
package struct SealPolicy: Sendable, Equatable {
    /// Events per batch: 50 by default, up to 1,000 (the ingest's limit) for servers.
    package var maxEvents: Int
    /// The longest a partial batch waits.
    package var maxAge: Duration
    /// The largest request body, before compression.
    package var maxBodyBytes: Int = EventLimits.maxBodyBytes

    package static let defaultMaxEvents = 50

    /// 10 seconds, or 5 in debug builds (the product doc's numbers).
    package static var defaultMaxAge: Duration {
        #if DEBUG
        return debugMaxAge
        #else
        return releaseMaxAge
        #endif
    }

    package static let releaseMaxAge: Duration = .seconds(10)
    package static let debugMaxAge: Duration = .seconds(5)

    package init(maxEvents: Int = SealPolicy.defaultMaxEvents, maxAge: Duration = SealPolicy.defaultMaxAge) {
        self.maxEvents = min(max(maxEvents, 1), EventLimits.maxEventsPerRequest)
        self.maxAge = maxAge
    }

    /// Whether the open batch must be sealed before an event of `payloadBytes` joins it.
    func mustSealBefore(adding payloadBytes: Int, openCount: Int, openPayloadBytes: Int) -> Bool {
        guard openCount > 0 else { return false }
        return SealedBatch.bodyBytes(payloadBytes: openPayloadBytes + payloadBytes, count: openCount + 1) > maxBodyBytes
    }

    /// Whether the open batch is full after adding an event.
    func isFull(openCount: Int) -> Bool { openCount >= maxEvents }
}
