import Foundation

/// The ingest key's rules, in one place: what a well-formed key looks like and how it may appear
/// in a log line. The SDK, the CLI and the local ingest all ask here, so they cannot disagree.
package enum IngestKey {
    /// Which kind of key a well-formed key is.
    package enum Kind: Sendable, Equatable {
        /// `sdl_pub_…`: for apps, safe to ship in a binary.
        case publishable
        /// `sdl_sec_…`: for servers.
        case secret
    }

    /// The prefix of publishable keys.
    package static let publishablePrefix = "sdl_pub_"
    /// The prefix of secret keys.
    package static let secretPrefix = "sdl_sec_"

    /// The kind of `key`, or nil when it is not well formed: one of the two prefixes followed by
    /// at least one character. A key that is not well formed is never sent (the edge would only
    /// answer 401).
    package static func kind(of key: String) -> Kind? {
        guard key.utf8.count > publishablePrefix.utf8.count else { return nil }
        if key.hasPrefix(publishablePrefix) { return .publishable }
        if key.hasPrefix(secretPrefix) { return .secret }
        return nil
    }

    /// `key` without the whitespace (spaces, tabs, newlines) around it. No key holds whitespace,
    /// and one read from a file or an environment variable often ends in a newline, which the
    /// edge would refuse (401) as a wrong key.
    package static func trimmed(_ key: String) -> String {
        key.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What ``trimmed(_:)`` would take away, named for a log line (`a trailing newline`,
    /// `whitespace`), or `nil` when the key has none around it.
    package static func trimmedWhitespace(_ key: String) -> String? {
        let trimmed = trimmed(key)
        guard trimmed != key else { return nil }
        if trimmed.isEmpty { return "only whitespace" }
        let tail = key.hasPrefix(trimmed) ? String(key.dropFirst(trimmed.count)) : ""
        return tail == "\n" || tail == "\r\n" ? "a trailing newline" : "whitespace or newlines"
    }

    /// `key` as it may appear in a log line or an error (INGEST-API.md: never in full): its
    /// first 12 characters at most, always at least 4 fewer than the whole key, then `…`.
    package static func redacted(_ key: String) -> String {
        String(key.prefix(min(12, max(0, key.count - 4)))) + "…"
    }
}
