extension Duration {
    /// The duration in whole milliseconds, rounded toward zero: how `duration_ms`, log lines and
    /// the demo print a duration.
    package var wholeMilliseconds: Int64 {
        components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }
}
