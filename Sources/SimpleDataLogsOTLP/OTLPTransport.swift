public import Foundation
public import SimpleDataLogs

/// A ``SimpleDataLogs/Transport`` that delivers events to an OpenTelemetry Collector as OTLP/HTTP
/// logs (JSON, `POST {collector}/v1/logs`) instead of to the SimpleDataLogs ingest.
///
/// It is an adapter between the SDK's uploader and the collector: for each try of a batch it
/// reads the ingest batch the uploader built (inflating it when gzipped), writes one OTLP
/// `ExportLogsServiceRequest` in OTLP's JSON encoding (each event a `LogRecord`: `ts` as
/// `timeUnixNano`, the name as `body` and `eventName`, `event_id`, `device_id`, `session_id` and
/// every property as typed attributes), sends it with an inner transport, and restates the
/// collector's answer as the ingest answer the uploader knows (200 as 202, a partial success as
/// 202 with that many rejections, 400 as 400, 429 and 503 with their `Retry-After`). The
/// uploader's journal, batching, caps, retries, counters and metrics are the same as with the
/// ingest; events are still written to disk first and deleted only once the collector took them.
///
/// ```swift
/// let otlp = OTLPTransport(collector: URL(string: "http://otel-collector:4318")!, serviceName: "checkout")
/// var configuration = SimpleDataLogsClient.Configuration.server(sendingTo: otlp)
/// configuration.allowsInsecureHTTP = true // an in-cluster collector on plain HTTP
/// analytics.configure(configuration)
/// ```
///
/// What it sends and how each answer is read, in detail: the article "Sending events to an
/// OpenTelemetry Collector".
///
/// - The body is gzipped (`Content-Encoding: gzip`) when the uploader's was, so
///   ``SimpleDataLogsClient/Configuration/compressesRequests`` decides for both; a 415 makes the
///   uploader try once more uncompressed, as with the ingest.
/// - The uploader's `Authorization` (the ingest key) is never sent to the collector; the
///   ``headers`` given here are (a collector's own authentication), with `Content-Type`,
///   `User-Agent` and `SDL-Batch-ID`.
/// - Redirects are never followed: the inner transport is ``SimpleDataLogs/URLSessionTransport``
///   by default, which returns a 3xx as the answer (the uploader backs off).
public final class OTLPTransport: Transport {
    /// The collector's OTLP/HTTP base URL, as given.
    public let collector: URL
    /// Where exports go: the collector's URL with `/v1/logs` appended (OTLP/HTTP's default path
    /// for logs; a path prefix in the collector's URL is kept).
    public let logsURL: URL
    /// Header fields sent with every export, for example a collector's `Authorization`.
    public let headers: [String: String]
    private let encoder: OTLPLogsEncoder
    private let inner: any Transport
    /// The inner transport this one made, invalidated with it.
    private let owned: URLSessionTransport?

    /// A key the SDK's configuration accepts, for a client whose events go only to a collector:
    /// the uploader needs one to send at all, and this transport never forwards it.
    public static let ingestKey = "sdl_sec_opentelemetry"

    /// The largest body accepted from the uploader after inflation; an ingest batch is at most
    /// 256 KiB, so anything over this is not one.
    static let maxBatchBytes = 4 * 1024 * 1024

    /// Creates the transport.
    /// - Parameters:
    ///   - collector: The collector's OTLP/HTTP base URL, for example `http://otel-collector:4318`;
    ///     `/v1/logs` is appended (a trailing `/` dropped first).
    ///   - serviceName: The resource's `service.name`.
    ///   - resourceAttributes: More resource attributes (for example `deployment.environment`),
    ///     as strings; `service.name` and `telemetry.sdk.*` are this transport's and win.
    ///   - scopeName: The instrumentation scope's name; `simpledatalogs` by default.
    ///   - headers: Header fields sent with every export; none by default.
    ///   - inner: The transport that performs the HTTP exchange; a new
    ///     ``SimpleDataLogs/URLSessionTransport`` by default, invalidated when this one is released.
    public init(
        collector: URL, serviceName: String, resourceAttributes: [String: String] = [:], scopeName: String = "simpledatalogs",
        headers: [String: String] = [:], inner: (any Transport)? = nil
    ) {
        self.collector = collector
        logsURL = Self.logsURL(forCollector: collector)
        self.headers = headers
        encoder = OTLPLogsEncoder(
            resource: Resource(serviceName: serviceName, attributes: resourceAttributes), scopeName: scopeName
        )
        let made = inner == nil ? URLSessionTransport() : nil
        owned = made
        self.inner = inner ?? made ?? URLSessionTransport()
    }

    deinit { owned?.invalidate() }

    /// Translates one try of a batch into an OTLP export, sends it, and restates the answer.
    /// - Parameter request: The uploader's request to the ingest (its URL is not used).
    /// - Returns: The collector's answer as an ingest answer (see the type's table). A body that
    ///   is no ingest batch is answered 400 without sending anything, so the batch is set aside.
    /// - Throws: What the inner transport throws: a ``SimpleDataLogs/TransportError`` when no
    ///   answer arrived.
    public func send(_ request: UploadRequest) async throws -> UploadResponse {
        let export: Export
        switch Self.export(for: request, encoder: encoder) {
        case .success(let made): export = made
        case .failure(let failure): return Self.refusal(failure.message)
        }
        var outgoing = headers
        outgoing["Content-Type"] = "application/json"
        if export.gzipped { outgoing["Content-Encoding"] = "gzip" }
        for name in ["User-Agent", "SDL-Batch-ID"] {
            if let value = request.header(name) { outgoing[name] = value }
        }
        let answer = try await inner.send(
            UploadRequest(url: logsURL, method: "POST", headers: outgoing, body: Data(export.body), timeout: request.timeout)
        )
        return OTLPAnswer.ingestResponse(for: answer, eventCount: export.eventCount)
    }

    /// One export, ready to send.
    struct Export: Equatable {
        /// The JSON body, gzipped when ``gzipped``.
        var body: [UInt8]
        var gzipped: Bool
        /// How many log records it carries.
        var eventCount: Int
    }

    /// Builds the export for one of the uploader's requests: inflate, read, encode, compress.
    /// - Parameters:
    ///   - request: The uploader's request.
    ///   - encoder: The encoder for this transport's resource and scope.
    /// - Returns: The export, or why the request carries no ingest batch.
    static func export(for request: UploadRequest, encoder: OTLPLogsEncoder) -> Result<Export, IngestBatch.Failure> {
        let wasGzipped = request.header("Content-Encoding")?.lowercased() == "gzip"
        var body = [UInt8](request.body)
        if wasGzipped {
            switch Gzip.inflate(body, limit: maxBatchBytes) {
            case .success(let inflated): body = inflated
            case .failure(.tooLarge): return .failure(IngestBatch.Failure(message: "the batch inflates past \(maxBatchBytes) bytes"))
            case .failure(.corrupt(let why)): return .failure(IngestBatch.Failure(message: "the batch's gzip body does not inflate: \(why)"))
            }
        }
        let batch: IngestBatch
        switch IngestBatch.read(body) {
        case .success(let read): batch = read
        case .failure(let failure): return .failure(failure)
        }
        let json = encoder.encode(batch)
        // When zlib fails the export goes uncompressed, and says so.
        if wasGzipped, let compressed = Gzip.compress(json) {
            return .success(Export(body: compressed, gzipped: true, eventCount: batch.events.count))
        }
        return .success(Export(body: json, gzipped: false, eventCount: batch.events.count))
    }

    /// The 400 for a request that carries no ingest batch: the uploader sets it aside.
    static func refusal(_ message: String) -> UploadResponse {
        var body = OTLPJSONWriter()
        body.raw(#"{"error":"#)
        body.string("the OTLP transport could not read the batch: \(message)")
        body.raw("}")
        return UploadResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(body.bytes))
    }

    /// `collector` + `/v1/logs`, a trailing `/` dropped first.
    /// - Parameter collector: The collector's base URL.
    /// - Returns: The logs URL.
    static func logsURL(forCollector collector: URL) -> URL {
        var text = collector.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/v1/logs") ?? collector.appendingPathComponent("v1/logs")
    }
}

extension OTLPTransport {
    /// The resource every export describes: `service.name`, the SDK as `telemetry.sdk.*`, and
    /// the caller's own attributes.
    struct Resource: Sendable, Equatable {
        var serviceName: String
        var attributes: [String: String]

        /// The attributes in the order written: `service.name`, `telemetry.sdk.name`,
        /// `telemetry.sdk.language`, `telemetry.sdk.version`, then the caller's sorted by name
        /// (those with one of the first four names left out).
        var allAttributes: [(key: String, value: String)] {
            let own: [(key: String, value: String)] = [
                ("service.name", serviceName),
                ("telemetry.sdk.name", "simpledatalogs-swift"),
                ("telemetry.sdk.language", "swift"),
                ("telemetry.sdk.version", SimpleDataLogsVersion.current),
            ]
            let taken = Set(own.map(\.key))
            return own + attributes.filter { !taken.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }
}
