package import Foundation

/// Thin package-level doors into internal pieces, for the baselines of the benchmark suite
/// (`Benchmarks/`): the same id generator, encoder, record framing and request builder the SDK
/// uses, so that a baseline differs from the SDK only in what the benchmark means to measure.
/// Nothing in the SDK calls these.
package enum BenchmarkSupport {
    /// The intake's event-id generator (UUIDv7 from wyrand), as a value the caller guards.
    package struct IDGenerator: Sendable {
        private var generator = EventIDGenerator()

        /// Seeds from the system's generator, as the intake does.
        package init() {}

        /// The next id for an event stamped at `milliseconds`.
        package mutating func next(milliseconds: Int64) -> UUID { generator.next(milliseconds: milliseconds) }
    }

    /// The wall clock's reading in whole milliseconds, exactly as `track()` stamps it.
    package static func nowMilliseconds(_ clock: any WallClock) -> Int64 { clock.nowMilliseconds }

    /// Encodes a live event as the journal does, and appends it framed as one journal record.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: Its properties.
    ///   - id: Its id.
    ///   - timestamp: Its `ts`, in ms since the Unix epoch.
    ///   - scratch: A reusable buffer for the payload (the journal keeps one too).
    ///   - buffer: Where the framed record is appended.
    package static func appendFramedRecord(
        name: String, properties: [String: PropertyValue], id: UUID, timestamp: Int64,
        scratch: inout [UInt8], to buffer: inout [UInt8]
    ) {
        let event = Event(name: name, id: id, timestamp: timestamp, trackedAt: timestamp, properties: properties, origin: .live)
        scratch.removeAll(keepingCapacity: true)
        EventEncoder.encode(event, into: &scratch)
        JournalRecord.append(payload: scratch, to: &buffer)
    }

    /// One event's JSON payload, exactly as the journal stores it and the uploader sends it.
    package static func payload(name: String, properties: [String: PropertyValue], id: UUID, timestamp: Int64) -> [UInt8] {
        EventEncoder.encode(Event(name: name, id: id, timestamp: timestamp, trackedAt: timestamp, properties: properties, origin: .live))
    }

    /// The request the uploader would build for these payloads: same URL, headers, body and
    /// compression. `endpoint` is the base URL the client is configured with.
    package static func uploadRequest(
        endpoint: URL, ingestKey: String, batchID: UUID, payloads: [[UInt8]], sentAt: Int64, gzip: Bool
    ) -> UploadRequest? {
        guard case .success(let resolved) = Endpoint.resolve(endpoint, allowsInsecureHTTP: false) else { return nil }
        let system = UploadRequestBuilder.currentOperatingSystem()
        let builder = UploadRequestBuilder(eventsURL: resolved.eventsURL, ingestKey: ingestKey, osName: system.name, osVersion: system.version)
        return builder.request(batchID: batchID, payloads: payloads, sentAt: sentAt, gzip: gzip)
    }
}
