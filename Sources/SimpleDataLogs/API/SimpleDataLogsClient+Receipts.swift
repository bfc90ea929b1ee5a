extension SimpleDataLogsClient {
    /// What the outbox needs for ``Configuration/completenessReceipts``: the period (a day, or
    /// the tuned one), the client's wall clock, and where the app's version comes from.
    func receiptSettings(for configuration: Configuration) -> ReceiptSettings {
        ReceiptSettings(
            isOn: configuration.completenessReceipts != .off,
            atShutdown: configuration.completenessReceipts == .dailyAndAtShutdown,
            period: tuning.receiptPeriod ?? ReceiptSettings.day, wallClock: wallClock,
            context: tuning.contextSource ?? .system
        )
    }
}
