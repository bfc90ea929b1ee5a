/// What the outbox needs to keep the completeness receipts: whether to, when, and the wall clock
/// they are stamped and timed with (across launches; within a run the period is a timer on the
/// client's clock).
package struct ReceiptSettings: Sendable {
    /// Whether a ledger is kept and receipts are sent.
    package var isOn: Bool
    /// Whether a receipt is also made when the client shuts down (servers).
    package var atShutdown: Bool
    /// The time between two receipts: a day, unless a test tunes it
    /// (``ClientTuning/receiptPeriod``).
    package var period: Duration
    /// Stamps receipts and tells, at launch, how long ago the last one was made.
    package var wallClock: any WallClock
    /// Where the app's version comes from when no event carried an `app_version` property.
    package var context: ContextSource?

    /// The default period: a day.
    package static let day: Duration = .seconds(86_400)

    /// No receipts (the outbox's own tests, and `completenessReceipts: .off`).
    package static let off = ReceiptSettings(isOn: false, atShutdown: false, period: day, wallClock: SystemWallClock(), context: nil)

    /// The settings.
    package init(isOn: Bool, atShutdown: Bool, period: Duration, wallClock: any WallClock, context: ContextSource?) {
        self.isOn = isOn
        self.atShutdown = atShutdown
        self.period = period
        self.wallClock = wallClock
        self.context = context
    }

    /// The period in milliseconds (at least one).
    var periodMilliseconds: Int64 {
        let components = period.components
        return max(1, components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
