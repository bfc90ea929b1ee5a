/// How an ingest key is shown: never in full, the first 12 characters at most, like the SDK's
/// own log lines.
enum KeyText {
    /// `sdl_pub_abcd…`: enough to tell keys apart, not enough to use one.
    static func shown(_ key: String) -> String {
        String(key.prefix(min(12, max(0, key.count - 4)))) + "…"
    }
}
