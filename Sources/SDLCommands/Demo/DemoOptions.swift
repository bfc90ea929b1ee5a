/// What `sdl demo` does, in numbers; tests run it smaller.
package struct DemoOptions: Sendable {
    /// Events in the burst.
    package var burstSize = 3_000
    /// Events tracked between two `flush()` calls in the burst: well under the SDK's 5,000
    /// events waiting to be written, so none is skipped.
    package var burstChunk = 500
    /// Events tracked while the ingest is failing.
    package var outageEvents = 25
    /// How many requests the ingest answers with 503.
    package var outageFailures = 3
    /// The factor applied to the SDK's backoff delays, so the outage ends in well under a second
    /// (the demo says so on screen).
    package var backoffScale = 0.02
    /// The longest the demo waits for any one step before it gives up and fails.
    package var stepTimeout: Duration = .seconds(20)
    /// `SDL_LOG_LEVEL` for the demo's client, if the user set one.
    package var logLevelName: String?

    /// Creates the defaults `sdl demo` runs with.
    package init() {}
}
