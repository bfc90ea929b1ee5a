/// Everything the uploader is told at `configure`, resolved once.
struct UploaderSettings: Sendable {
    /// Builds the requests; `nil` when nothing may be sent (a refused endpoint, a bad key).
    var builder: UploadRequestBuilder?
    var transport: any Transport
    /// The default transport the client made for itself, invalidated at shutdown so its
    /// connections and descriptors go; a transport the app passed stays the app's.
    var ownedTransport: URLSessionTransport?
    var compresses: Bool
    var requestTimeout: Duration
    var maxConcurrentRequests: Int
    /// Multiplies every backoff delay; 1 in production, smaller in `sdl demo` (which says so).
    var backoffScale: Double
    /// The client's offline switch: no request starts while it is on.
    var sending = SendingSwitch()

    /// The destination the outbox records for this client's events (``AreaOwner``); `nil` when
    /// nothing may be sent.
    var owner: AreaOwner? { builder.map { AreaOwner(ingestKey: $0.ingestKey, eventsURL: $0.eventsURL) } }
    /// The destinations of `previousIngestKeys` (well formed, not the key itself), whose areas
    /// this client takes over; none when nothing may be sent.
    var formerOwners: [AreaOwner] = []
}
