public import Foundation
public import SimpleDataLogs

extension SimpleDataLogsClient.Configuration {
    /// A server configuration (``SimpleDataLogsClient/Configuration/server(ingestKey:endpoint:storageDirectory:)``:
    /// batches of 1,000, 4 requests at once, the server limits, the intake log) whose events go to
    /// an OpenTelemetry Collector through `otlp` instead of to the SimpleDataLogs ingest.
    ///
    /// The key is ``OTLPTransport/ingestKey`` (the uploader needs one; the transport never sends
    /// it) and the endpoint is the collector's URL, so the SDK's endpoint rules apply to it: a
    /// plain `http://` collector that is not on loopback needs
    /// ``SimpleDataLogsClient/Configuration/allowsInsecureHTTP``. The client's "Configured" log
    /// line says it sends through `OTLPTransport`, for `{collector}/v1/events` (the ingest path
    /// the uploader builds); exports go to ``OTLPTransport/logsURL``.
    /// - Parameters:
    ///   - otlp: The transport, with the collector's URL and the service's name.
    ///   - storageDirectory: The outbox folder, or `nil` for `SDL_STORAGE_DIR` or the default.
    /// - Returns: The configuration; change any field afterwards.
    public static func server(sendingTo otlp: OTLPTransport, storageDirectory: URL? = nil) -> Self {
        var configuration = server(ingestKey: OTLPTransport.ingestKey, endpoint: otlp.collector, storageDirectory: storageDirectory)
        configuration.transport = otlp
        return configuration
    }
}
