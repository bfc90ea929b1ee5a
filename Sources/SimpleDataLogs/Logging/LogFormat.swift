/// How log lines print what they measure, the same way everywhere.
package enum LogFormat {
    /// A duration as people read it: `38 ms` under a second, `2.3 s` up to a minute, `10 min`
    /// beyond.
    package static func duration(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        if milliseconds < 1_000 { return "\(milliseconds) ms" }
        if milliseconds < 60_000 {
            let tenths = (milliseconds + 50) / 100
            return "\(tenths / 10).\(tenths % 10) s"
        }
        let minutes = Double(milliseconds) / 60_000
        return minutes == minutes.rounded() ? "\(Int(minutes)) min" : "\((minutes * 10).rounded() / 10) min"
    }

    /// A byte count with its unit: `512 B`, `12.3 KiB`, `4.0 MiB`.
    package static func bytes(_ count: Int) -> String {
        if count < 1_024 { return "\(count) B" }
        let kib = Double(count) / 1_024
        if kib < 1_024 { return "\((kib * 10).rounded() / 10) KiB" }
        return "\((kib / 1_024 * 10).rounded() / 10) MiB"
    }
}
