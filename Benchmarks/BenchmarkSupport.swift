import Foundation
import SimpleDataLogs

/// The SDK's own encoder, record framing and request builder, put together the way the journal
/// and the uploader use them, for the baselines: a baseline then differs from the SDK only in what
/// the benchmark means to measure. The pieces are the library's `package` declarations (the id
/// generator and `nowMilliseconds` too, called directly); this file lives in the benchmark target
/// so that users of the library link none of it.
enum BenchmarkSupport {
    /// Encodes a live event as the journal does, and appends it framed as one journal record.
    /// - Parameters:
    ///   - name: The event's name.
    ///   - properties: Its properties.
    ///   - id: Its id.
    ///   - timestamp: Its `ts`, in ms since the Unix epoch.
    ///   - scratch: A reusable buffer for the payload (the journal keeps one too).
    ///   - buffer: Where the framed record is appended.
    static func appendFramedRecord(
        name: String, properties: [String: PropertyValue], id: UUID, timestamp: Int64,
        scratch: inout [UInt8], to buffer: inout [UInt8]
    ) {
        let event = Event.live(name: name, id: id, timestamp: timestamp, properties: properties)
        scratch.removeAll(keepingCapacity: true)
        EventEncoder.encode(event, into: &scratch)
        JournalRecord.append(payload: scratch, to: &buffer)
    }

    /// One event's JSON payload, exactly as the journal stores it and the uploader sends it.
    static func payload(name: String, properties: [String: PropertyValue], id: UUID, timestamp: Int64) -> [UInt8] {
        EventEncoder.encode(Event.live(name: name, id: id, timestamp: timestamp, properties: properties))
    }

    /// The request the uploader would build for these payloads: same URL, headers, body and
    /// compression. `endpoint` is the base URL the client is configured with.
    static func uploadRequest(
        endpoint: URL, ingestKey: String, batchID: UUID, payloads: [[UInt8]], sentAt: Int64, gzip: Bool
    ) -> UploadRequest? {
        guard case .success(let resolved) = Endpoint.resolve(endpoint, allowsInsecureHTTP: false) else { return nil }
        let system = UploadRequestBuilder.currentOperatingSystem()
        let builder = UploadRequestBuilder(eventsURL: resolved.eventsURL, ingestKey: ingestKey, osName: system.name, osVersion: system.version)
        return builder.request(batchID: batchID, payloads: payloads, sentAt: sentAt, gzip: gzip)
    }
}
