package import Foundation

/// Builds the bytes and headers of one try of one batch (INGEST-API.md, "Request").
///
/// The sealed events are already-encoded JSON objects; the body is made by concatenating them
/// into `{"sent_at":…,"events":[e1,e2,…]}`, never by decoding and re-encoding, so every try of a
/// batch carries the very bytes that were sealed. `sent_at` and compression belong to the try,
/// not to the batch.
///
/// `SDL-Batch-ID` is the batch's UUID in lowercase (`UUID.uuidString.lowercased()`), the form
/// the `event_id`s use; since it is derived from the sealed UUID, it is the same on every try.
package struct UploadRequestBuilder: Sendable {
    /// The URL batches are POSTed to (from ``Endpoint``).
    let eventsURL: URL
    /// The ingest key, sent as `Authorization: Bearer …`. Never logged in full.
    private(set) var ingestKey: String
    /// The `User-Agent` value, made once by ``userAgent(osName:osVersion:)``.
    let userAgent: String

    /// Creates a builder.
    /// - Parameters:
    ///   - eventsURL: The URL batches are POSTed to.
    ///   - ingestKey: The ingest key.
    ///   - osName: The OS's name for the `User-Agent`, for example `Linux` or `iOS`.
    ///   - osVersion: The OS's version, for example `6.8.0` or `17.4`.
    package init(eventsURL: URL, ingestKey: String, osName: String, osVersion: String) {
        self.eventsURL = eventsURL
        self.ingestKey = ingestKey
        self.userAgent = Self.userAgent(osName: osName, osVersion: osVersion)
    }

    /// This builder with another key: the same events URL and `User-Agent` (a rotated key,
    /// ``KeyRotation``).
    /// - Parameter ingestKey: The new key, trimmed and well formed.
    /// - Returns: The builder for requests under the new key.
    func replacingKey(with ingestKey: String) -> UploadRequestBuilder {
        var copy = self
        copy.ingestKey = ingestKey
        return copy
    }

    /// Builds one try of a batch.
    /// - Parameters:
    ///   - batchID: The sealed batch's id, sent as `SDL-Batch-ID`.
    ///   - payloads: The sealed events, each one encoded JSON object, in batch order.
    ///   - sentAt: This try's wall-clock time in ms since the Unix epoch.
    ///   - gzip: Whether to compress the body. When zlib fails the body goes uncompressed, and the
    ///     request says so (no `Content-Encoding`); read ``SimpleDataLogs/SimpleDataLogs/UploadRequest/isGzipped`` afterwards.
    ///   - timeout: The transport's backstop timeout.
    /// - Returns: The request.
    package func request(batchID: UUID, payloads: [[UInt8]], sentAt: Int64, gzip: Bool, timeout: Duration = .seconds(30)) -> UploadRequest {
        var body = Self.body(payloads: payloads, sentAt: sentAt)
        var headers = [
            "Authorization": "Bearer \(ingestKey)",
            "Content-Type": "application/json",
            "SDL-Batch-ID": batchID.uuidString.lowercased(),
            "User-Agent": userAgent,
        ]
        if gzip, let compressed = Gzip.compress(body) {
            body = compressed
            headers["Content-Encoding"] = "gzip"
        }
        return UploadRequest(url: eventsURL, method: "POST", headers: headers, body: Data(body), timeout: timeout)
    }

    /// The body, uncompressed: `{"sent_at":<sentAt>,"events":[<payloads joined by ",">]}`.
    /// - Parameters:
    ///   - payloads: The encoded event objects.
    ///   - sentAt: ms since the Unix epoch.
    /// - Returns: The body bytes; exactly ``bodyByteCount(payloadByteCounts:sentAt:)`` long.
    static func body(payloads: [[UInt8]], sentAt: Int64) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(bodyByteCount(payloadByteCounts: payloads.map(\.count), sentAt: sentAt))
        body.append(contentsOf: #"{"sent_at":"#.utf8)
        body.append(contentsOf: String(sentAt).utf8)
        body.append(contentsOf: #","events":["#.utf8)
        for (index, payload) in payloads.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: payload)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }

    /// The length of the uncompressed body around payloads of these sizes, for a given `sent_at`.
    /// - Parameters:
    ///   - payloadByteCounts: The size of each encoded event.
    ///   - sentAt: ms since the Unix epoch.
    /// - Returns: The body's length in bytes.
    static func bodyByteCount(payloadByteCounts: [Int], sentAt: Int64) -> Int {
        envelopeByteCount(sentAtDigits: String(sentAt).utf8.count, eventCount: payloadByteCounts.count) + payloadByteCounts.reduce(0, +)
    }

    /// The longest the uncompressed body around payloads of these sizes can be, whatever the
    /// `sent_at` of the try (which is not known when a batch is sealed): the batcher keeps this
    /// at most ``EventLimits/maxBodyBytes`` (262,144), so every try fits.
    /// - Parameter payloadByteCounts: The size of each encoded event.
    /// - Returns: The body's greatest length in bytes.
    static func maximumBodyByteCount(payloadByteCounts: [Int]) -> Int {
        envelopeByteCount(sentAtDigits: String(Int64.min).utf8.count, eventCount: payloadByteCounts.count) + payloadByteCounts.reduce(0, +)
    }

    /// The bytes one more event of `payloadByteCount` adds to a body that already has `eventCount`
    /// events (its size, plus a comma unless it is the first), for a batcher filling incrementally.
    /// - Parameters:
    ///   - payloadByteCount: The new event's size.
    ///   - eventCount: The events already in the body.
    /// - Returns: The growth in bytes.
    static func addedByteCount(payloadByteCount: Int, eventCount: Int) -> Int {
        payloadByteCount + (eventCount > 0 ? 1 : 0)
    }

    /// `{"sent_at":` + digits + `,"events":[` + commas + `]}`.
    private static func envelopeByteCount(sentAtDigits: Int, eventCount: Int) -> Int {
        #"{"sent_at":"#.utf8.count + sentAtDigits + #","events":["#.utf8.count + max(0, eventCount - 1) + "]}".utf8.count
    }

    /// The `User-Agent` value: `simpledatalogs-swift/<version> (<os name> <os version>)`.
    /// - Parameters:
    ///   - osName: The OS's name.
    ///   - osVersion: The OS's version.
    /// - Returns: The header value.
    static func userAgent(osName: String, osVersion: String) -> String {
        "simpledatalogs-swift/\(SimpleDataLogsVersion.current) (\(osName) \(osVersion))"
    }
}
