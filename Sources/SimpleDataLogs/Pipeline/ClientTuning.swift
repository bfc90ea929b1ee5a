/// What a caller inside this package may tune in a client beyond its public configuration:
/// `sdl demo` and the reliability suite shorten the backoff waits, benchmarks and outbox tests
/// turn uploads off, tests choose a seal policy or caps. No fault is injected through it (that is
/// ``FaultInjection``). The public initializer uses the defaults, which change nothing.
package struct ClientTuning: Sendable {
    /// Replaces the seal policy the configuration makes (its `batchSize`, the default age).
    package var sealPolicy: SealPolicy?
    /// Replaces the outbox caps the configuration's limits make.
    package var caps: OutboxCaps?
    /// Whether the uploader runs; outbox unit tests turn it off to look at files undisturbed.
    package var startsUploader = true
    /// Multiplies every backoff delay (`sdl demo` shortens the wait, and says so).
    package var backoffScale: Double = 1
    /// Whether `track()` appends to the intake log, over the configuration's
    /// ``SimpleDataLogsClient/Configuration/keepsIntakeLog`` (nil: the configuration decides); for
    /// the benchmarks and the reliability driver, which compare the two.
    package var intakeLog: Bool?
    /// Where the automatic context's facts come from (nil: the system); tests pass fixed ones.
    package var contextSource: ContextSource?
    /// The time between two completeness receipts (nil: a day); tests shorten it.
    package var receiptPeriod: Duration?

    /// No tuning: the client the public initializer makes.
    package init() {}
}
