public import SimpleDataLogs

extension LocalIngest {
    /// How a ``LocalIngest`` listens, which keys it takes, its size limit and its standing faults.
    public struct Configuration: Sendable {
        /// The TCP port; `0` (the default) lets the system pick a free one, which
        /// ``LocalIngest/port`` then reports.
        public var port: Int
        /// The IPv4 address to listen on, in dotted form: `127.0.0.1` (the default) takes
        /// connections from this machine only; `0.0.0.0` from every interface, so that a phone on
        /// the same network can send to it; another address, from that interface only. Anything
        /// else makes ``LocalIngest/init(configuration:)`` throw.
        public var host: String
        /// The one key accepted; `nil` (the default) accepts any `sdl_pub_…` or `sdl_sec_…` key.
        public var requiredKey: String?
        /// The largest body accepted, counted after gzip decoding; larger bodies get 413. The
        /// contract's limit is 262,144 bytes (256 KiB); tests of splitting set it smaller.
        public var maxBodyBytes: Int
        /// Real time added before every answer, to simulate a slow network or edge.
        public var addedLatency: Duration
        /// How long after start the key goes live; until then every request gets 401, as a new
        /// key does at the edge for about 30 s. Measured on ``clock``; ``LocalIngest/makeKeyLive()``
        /// ends the wait at once.
        public var keyLiveAfter: Duration
        /// The clock that ``keyLiveAfter`` is measured on; pass a `ManualClock` to control it.
        public var clock: any Clock<Duration>
        /// The wall clock that the `ts` window ([now − 3,652 days, now + 1 day]) is checked against.
        public var wallClock: any WallClock

        /// Creates a configuration; every parameter has the contract's default.
        /// - Parameters:
        ///   - port: The port, or `0` for a free one.
        ///   - host: The IPv4 address to listen on; `127.0.0.1` (this machine only) by default.
        ///   - requiredKey: The only key accepted, or `nil` for any well-formed key.
        ///   - maxBodyBytes: The body limit after decompression.
        ///   - addedLatency: Time added before every answer.
        ///   - keyLiveAfter: How long the key answers 401 after start.
        ///   - clock: The clock for `keyLiveAfter`.
        ///   - wallClock: The clock for the `ts` window.
        public init(
            port: Int = 0,
            host: String = "127.0.0.1",
            requiredKey: String? = nil,
            maxBodyBytes: Int = 262_144,
            addedLatency: Duration = .zero,
            keyLiveAfter: Duration = .zero,
            clock: any Clock<Duration> = ContinuousClock(),
            wallClock: any WallClock = SystemWallClock()
        ) {
            self.port = port
            self.host = host
            self.requiredKey = requiredKey
            self.maxBodyBytes = maxBodyBytes
            self.addedLatency = addedLatency
            self.keyLiveAfter = keyLiveAfter
            self.clock = clock
            self.wallClock = wallClock
        }
    }
}
