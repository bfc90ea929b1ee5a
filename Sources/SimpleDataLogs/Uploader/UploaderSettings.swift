/// Everything the uploader is told at `configure`, resolved once.
struct UploaderSettings: Sendable {
    /// Builds the requests; `nil` when nothing may be sent (a refused endpoint, a bad key).
    var builder: UploadRequestBuilder?
    var transport: any Transport
    var compresses: Bool
    var requestTimeout: Duration
    var maxConcurrentRequests: Int
    /// Multiplies every backoff delay; 1 in production, smaller in `sdl demo` (which says so).
    var backoffScale: Double
}
