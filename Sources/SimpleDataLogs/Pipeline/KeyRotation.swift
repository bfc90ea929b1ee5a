/// A new ingest key for the same destination (`rotateIngestKey(to:)`), on its way through the
/// stages in order with the calls around it.
///
/// The outbox, when it reaches it, records its area as the new key's (so that a launch
/// configured with the new key sends what is left) and hands the key to the uploader, which
/// sends everything still unsent with it from its next request on and ends a 401 pause at once.
/// It never enters the intake log: a key is never stored in clear.
struct KeyRotation: Sendable {
    /// The new key: trimmed, well formed, not the current one (``verdict(newKey:currentKey:)``).
    let key: String

    /// What `rotateIngestKey(to:)` does with a key, decided before anything is queued.
    enum Verdict: Sendable, Equatable {
        /// Rotate: queue the rotation, with this (trimmed) key.
        case rotate(String)
        /// The key is the one in use: nothing to do.
        case unchanged
        /// Not a well-formed key (neither prefix): refused, the current key stays.
        case malformed
        /// The client sends nothing (a refused endpoint or key at `configure`, or not configured
        /// yet): refused, since there is no destination to keep.
        case cannotSend
    }

    /// The rule for a rotation request.
    /// - Parameters:
    ///   - newKey: The key the app passed, maybe with whitespace around it.
    ///   - currentKey: The key the client sends with now; `nil` when it sends nothing.
    /// - Returns: What to do.
    static func verdict(newKey: String, currentKey: String?) -> Verdict {
        guard let currentKey else { return .cannotSend }
        let key = IngestKey.trimmed(newKey)
        guard IngestKey.kind(of: key) != nil else { return .malformed }
        return key == currentKey ? .unchanged : .rotate(key)
    }
}
