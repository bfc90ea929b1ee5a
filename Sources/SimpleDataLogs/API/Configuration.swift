public import Foundation

extension SimpleDataLogsClient {
    /// Everything `configure` takes. Only the key is required.
    public struct Configuration: Sendable {
        /// The ingest key: `sdl_pub_…` in apps, `sdl_sec_…` on servers.
        public var ingestKey: String
        /// Keys this project used before ``ingestKey``, after a rotation that restarted the
        /// process: what they left in the outbox folder (for the same endpoint: batches, crash
        /// records, intake logs) is sent with ``ingestKey`` and recorded as its own. Without them, such events wait for a client
        /// configured with their old key, since an outbox never sends one key's events with
        /// another unless told. Empty by default. At run time, use
        /// ``SimpleDataLogsClient/rotateIngestKey(to:)``.
        public var previousIngestKeys: [String] = []
        /// Where events go; a trailing `/` is dropped and a path prefix kept.
        public var endpoint: URL
        /// What is sent without a `track` call; none by default.
        public var autocapture: Autocapture
        /// When sessions end.
        public var sessionMode: SessionMode
        /// How much of a crash reason is sent.
        public var crashReasonRedaction: CrashReasonRedaction
        /// Whether events carry `app_state` and `engaged_ms`.
        public var activity: ActivityTracking
        /// The lowest level logged. `SDL_LOG_LEVEL`, when set, wins, so that an operator can turn
        /// logging up without a new build.
        public var logLevel: LogLevel
        /// The outbox folder. When `nil`: `SDL_STORAGE_DIR`, then the platform's app-data folder.
        public var storageDirectory: URL?
        /// The app's id for the default storage folder; the bundle id or executable name when `nil`.
        public var appID: String?
        /// Events per batch: 50 by default, as the product doc says; up to 1,000 for servers with
        /// high volume. A batch also seals when one more event would take its request over 256 KiB.
        public var batchSize: Int
        /// Requests in flight at once: 1 by default; more for servers with high volume or long
        /// round trips.
        public var maxConcurrentRequests: Int
        /// Whether request bodies are gzip-compressed (`Content-Encoding: gzip`); on by default.
        public var compressesRequests: Bool
        /// How long the uploader waits for an answer before it counts the try as failed, on the
        /// client's clock. The transport's own timeout is only a backstop.
        public var requestTimeout: Duration
        /// Allows plain `http://` to a host that is not loopback, for an in-cluster relay.
        /// Without it such an endpoint gets one log line and nothing is sent.
        public var allowsInsecureHTTP: Bool
        /// How requests go out; one long-lived `URLSession` by default. Plug in your own client
        /// (for example AsyncHTTPClient) through ``Transport``.
        public var transport: (any Transport)?
        /// How much the client may hold on disk and in memory; ``Limits/standard`` by default,
        /// ``Limits/server`` in ``server(ingestKey:endpoint:storageDirectory:)``.
        public var limits: Limits
        /// Steps that enrich, rewrite, scrub or drop each event before it is journaled, in the
        /// order they run; none by default. See ``EventMiddleware``.
        public var middleware: [EventMiddleware] = []
        /// Whether events for which the app sets no device id carry an install id the SDK keeps:
        /// a random UUID stored with the outbox (`install-id`, not in the user defaults), the same on
        /// every launch until ``SimpleDataLogsClient/reset(deviceID:)`` replaces it. Off by
        /// default; an id the app sets (``SimpleDataLogsClient/setDeviceID(_:)``, per event or
        /// per task) always wins.
        public var usesInstallID = false
        /// Facts about the app and the device added to every event as properties (`app_version`,
        /// `os_name`, `device_model`, `locale`, `build_kind`…); none by default. Read once per
        /// launch, off `track()`'s path; an event's own property, a scope's and a default
        /// property of the same name win. See ``AutomaticContext``.
        public var automaticContext: AutomaticContext = []
        /// Whether every call that returned survives a kill of the process (`kill -9`, an
        /// out-of-memory or jetsam kill, `abort()`, a crash): `track()` and the identity calls
        /// are also written into the intake log, a file mapped into memory that the kernel keeps
        /// when the process dies, and the next launch sends what the journal had not taken yet.
        /// Without it, events wait in memory for a few milliseconds before the journal, and a
        /// kill costs those (thousands at 20,000 events a second).
        ///
        /// On by default (decision 0045): `track()` writes its call's record into the log from its
        /// own arguments and queues only where it is, so the call costs 1.25 times the call
        /// without the log here (p50 about 150 ns against 120, p99 under 2 µs). It takes 4 MiB of
        /// disk (8 MiB with ``Limits/server``), allocated by `configure` before it returns, on
        /// the caller's thread (about 0.1 ms here), so the events tracked before `configure` are
        /// covered too. A folder where the file cannot be made runs without it, with one log line.
        /// Turn it off to trade that protection for the disk and the 30 ns.
        public var keepsIntakeLog = true
        /// When the client sends a completeness receipt (``CompletenessReceipts``): what became of
        /// the events settled since the last one, by reason. ``CompletenessReceipts/daily`` by
        /// default: one small event a day tells the product how much of what each release tracked
        /// arrived. ``CompletenessReceipts/dailyAndAtShutdown`` in
        /// ``server(ingestKey:endpoint:storageDirectory:)``.
        public var completenessReceipts: CompletenessReceipts = .daily

        /// The edge every app sends to unless told otherwise.
        public static let defaultEndpoint = URL(string: "https://edge.simpledatalogs.com")!

        /// Creates a configuration with the product's defaults.
        /// - Parameters:
        ///   - ingestKey: The ingest key.
        ///   - endpoint: Where events go; `https://edge.simpledatalogs.com` by default.
        ///   - autocapture: What is sent without a `track` call; none by default.
        ///   - sessionMode: When sessions end; ``SessionMode/activation`` by default.
        ///   - crashReasonRedaction: How much of a crash reason is sent; word for word by default.
        ///   - activity: Whether events carry `app_state` and `engaged_ms`; on by default.
        ///   - logLevel: The lowest level logged; ``SimpleDataLogs/SimpleDataLogs/LogLevel/warning`` by default.
        ///   - storageDirectory: The outbox folder, or `nil` for the default.
        ///   - appID: The app's id for the default storage folder.
        ///   - batchSize: Events per batch, 1 to 1,000; 50 by default.
        ///   - maxConcurrentRequests: Requests in flight at once; 1 by default.
        ///   - compressesRequests: Whether bodies are gzipped; on by default.
        ///   - requestTimeout: The uploader's deadline per request; 30 seconds by default.
        ///   - allowsInsecureHTTP: Allows plain HTTP to a host that is not loopback.
        ///   - transport: How requests go out, or `nil` for the default `URLSession` transport.
        ///   - limits: How much the client may hold on disk and in memory.
        public init(
            ingestKey: String,
            endpoint: URL = Configuration.defaultEndpoint,
            autocapture: Autocapture = [],
            sessionMode: SessionMode = .activation,
            crashReasonRedaction: CrashReasonRedaction = .none,
            activity: ActivityTracking = .on,
            logLevel: LogLevel = .warning,
            storageDirectory: URL? = nil,
            appID: String? = nil,
            batchSize: Int = 50,
            maxConcurrentRequests: Int = 1,
            compressesRequests: Bool = true,
            requestTimeout: Duration = .seconds(30),
            allowsInsecureHTTP: Bool = false,
            transport: (any Transport)? = nil,
            limits: Limits = .standard
        ) {
            self.ingestKey = ingestKey
            self.endpoint = endpoint
            self.autocapture = autocapture
            self.sessionMode = sessionMode
            self.crashReasonRedaction = crashReasonRedaction
            self.activity = activity
            self.logLevel = logLevel
            self.storageDirectory = storageDirectory
            self.appID = appID
            self.batchSize = batchSize
            self.maxConcurrentRequests = maxConcurrentRequests
            self.compressesRequests = compressesRequests
            self.requestTimeout = requestTimeout
            self.allowsInsecureHTTP = allowsInsecureHTTP
            self.transport = transport
            self.limits = limits
        }

        /// A configuration for a busy server: batches of 1,000 events, 4 requests in flight,
        /// ``Limits/server`` (an outbox for an hour's outage at 1,000 events a second, a backlog
        /// for a burst of 100,000), a completeness receipt
        /// at shutdown as well as daily (``completenessReceipts``), and activity tracking
        /// off: a server has no app state, so its events carry no `app_state` or `engaged_ms`.
        /// Change any field afterwards.
        ///
        /// ```swift
        /// let analytics = SimpleDataLogsClient()
        /// analytics.configure(.server(ingestKey: "sdl_sec_…"))
        /// ```
        /// - Parameters:
        ///   - ingestKey: The secret key, `sdl_sec_…`.
        ///   - endpoint: Where events go.
        ///   - storageDirectory: The outbox folder, or `nil` for `SDL_STORAGE_DIR` or the default.
        /// - Returns: The configuration.
        public static func server(ingestKey: String, endpoint: URL = defaultEndpoint, storageDirectory: URL? = nil) -> Configuration {
            var configuration = Configuration(
                ingestKey: ingestKey, endpoint: endpoint, activity: .off, storageDirectory: storageDirectory,
                batchSize: 1_000, maxConcurrentRequests: 4, limits: .server
            )
            // A process of a fleet reports what it settled before it goes.
            configuration.completenessReceipts = .dailyAndAtShutdown
            return configuration
        }
    }
}
