import Foundation

extension SimpleDataLogsClient {
    /// How the uploader will send, or why it must not: a refused endpoint or a key with neither
    /// prefix leaves the builder out, so events stay on disk and nothing is sent.
    func uploaderSettings(for configuration: Configuration) -> (settings: UploaderSettings, refusal: String?) {
        var refusal: String?
        var builder: UploadRequestBuilder?
        switch Endpoint.resolve(configuration.endpoint, allowsInsecureHTTP: configuration.allowsInsecureHTTP) {
        case .success(let endpoint):
            let key = configuration.ingestKey
            if IngestKey.kind(of: key) != nil {
                let system = UploadRequestBuilder.currentOperatingSystem()
                builder = UploadRequestBuilder(eventsURL: endpoint.eventsURL, ingestKey: key, osName: system.name, osVersion: system.version)
            }
        case .failure(let error):
            refusal = error.message
        }
        let owned = configuration.transport == nil ? URLSessionTransport() : nil
        var settings = UploaderSettings(
            builder: builder,
            transport: configuration.transport ?? owned ?? URLSessionTransport(),
            ownedTransport: owned,
            compresses: configuration.compressesRequests,
            requestTimeout: configuration.requestTimeout,
            maxConcurrentRequests: max(1, configuration.maxConcurrentRequests),
            backoffScale: tuning.backoffScale,
            sending: sending
        )
        if let builder {
            // What keys this project used before leaves areas this client takes over.
            let previous = configuration.previousIngestKeys.map(IngestKey.trimmed)
            settings.formerOwners = previous.filter { IngestKey.kind(of: $0) != nil && $0 != builder.ingestKey }
                .map { AreaOwner(ingestKey: $0, eventsURL: builder.eventsURL) }
        }
        return (settings, refusal)
    }
}
