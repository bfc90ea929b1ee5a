public import Foundation
import SimpleDataLogs

/// A stand-in for an OpenTelemetry Collector's OTLP/HTTP receiver on 127.0.0.1, over real HTTP:
/// it takes logs exports in JSON at `/v1/logs` (gzip or not), records them, counts their log
/// records, and answers 200 with an empty `partialSuccess`, or what ``script(_:)`` says (a
/// failure with a `Status` body and `Retry-After`, or a partial success).
///
/// ```swift
/// let collector = try LocalCollector()
/// defer { collector.stop() }
/// let otlp = OTLPTransport(collector: collector.endpoint, serviceName: "checkout")
/// // configure a client with `.server(sendingTo: otlp)`, track, flush; then:
/// #expect(collector.acceptedLogRecords == 1)
/// ```
///
/// Like ``LocalIngest``, its socket work runs on threads of its own, never on Swift's
/// cooperative pool. It checks the path (404), method (405), `Content-Type` (415: JSON only, no
/// protobuf), `Content-Encoding` (415 unless gzip), size after decoding (413) and that the body
/// is a JSON object (400); it does not validate the export's fields: tests decode
/// ``requests``' bodies themselves. Call ``stop()`` when done; releasing it stops it too.
public final class LocalCollector: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let handler: CollectorHandler
    private let server: SocketServer

    /// Binds 127.0.0.1 and starts serving at once.
    /// - Parameters:
    ///   - port: The port; 0 (the default) lets the system choose a free one.
    ///   - maxBodyBytes: The body limit after decoding; 64 MiB, OTLP's recommended default.
    /// - Throws: ``LocalIngestError`` when the port cannot be bound.
    public init(port: Int = 0, maxBodyBytes: Int = 64 * 1024 * 1024) throws {
        handler = CollectorHandler(maxBodyBytes: maxBodyBytes)
        do {
            server = try SocketServer(port: port, handler: handler)
        } catch {
            throw LocalIngestError(message: "LocalCollector could not listen on 127.0.0.1:\(port): \(error)")
        }
        self.port = server.port
    }

    deinit { server.stop() }

    /// The collector's base URL, `http://127.0.0.1:PORT` (exports go to `/v1/logs` under it).
    public var endpoint: URL {
        // Built from parts known to be valid, so this never fails; the fallback keeps it total.
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops serving and returns once the server's threads have ended. Idempotent. What was
    /// recorded stays readable.
    public func stop() { server.stop() }

    /// Replaces the script: the next exports that reach the answer step get these answers, one
    /// each, in order, before normal 200s resume.
    /// - Parameter answers: The answers.
    public func script(_ answers: [CollectorAnswer]) { handler.state.withLock { $0.script = answers } }

    /// Every request read, in arrival order, with what was answered.
    public var requests: [CollectorRequest] { handler.state.withLock { $0.requests } }

    /// Log records taken: those of exports answered 2xx, less a partial success's rejections.
    /// A resent export counts again (a collector does not deduplicate).
    public var acceptedLogRecords: Int { handler.state.withLock { $0.acceptedLogRecords } }
}
