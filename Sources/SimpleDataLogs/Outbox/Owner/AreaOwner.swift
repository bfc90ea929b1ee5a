package import Foundation

/// The destination an outbox area's events were tracked for: the ingest key and the events URL.
/// Only a client configured with both sends them.
///
/// An area belongs to one client at a time and a client's key and endpoint never change, so the
/// area, not each batch, records them: every journal, batch, split half and set-aside file in it
/// shares them, and the caps, the opt-out and the set-aside retries, which work per area, never
/// reach another destination's files. It is written once, as the `owner` file, when a client
/// first takes the area (DESIGN.md, "Whose events an area holds").
///
/// The key is never stored. ``fingerprint`` is HMAC-SHA-256 keyed with the ingest key over the
/// events URL: telling whether a key matches needs the key itself, and finding the key from the
/// fingerprint means guessing it (keys are random tokens from the dashboard). What the file says
/// in clear is what the SDK's log lines already say: the key's redacted form
/// (``IngestKey/redacted(_:)``) and the events URL.
package struct AreaOwner: Sendable, Equatable {
    /// HMAC-SHA-256(key: the ingest key, message: `sdl-area-owner-v1\n` + ``endpoint``), in hex.
    package let fingerprint: String
    /// The key as it may be shown: ``IngestKey/redacted(_:)``.
    package let keyHint: String
    /// The events URL batches go to.
    package let endpoint: String

    /// The owner a client with this key and events URL writes.
    /// - Parameters:
    ///   - ingestKey: The configured key (surrounding whitespace already trimmed).
    ///   - eventsURL: The resolved events URL (``Endpoint/eventsURL``).
    package init(ingestKey: String, eventsURL: URL) {
        self.init(ingestKey: ingestKey, endpoint: eventsURL.absoluteString)
    }

    /// The owner a client with this key and events URL (as text: ``endpoint``) writes.
    /// - Parameters:
    ///   - ingestKey: The key (surrounding whitespace already trimmed).
    ///   - endpoint: The events URL's absolute string.
    package init(ingestKey: String, endpoint: String) {
        self.init(fingerprint: Self.fingerprint(ingestKey: ingestKey, endpoint: endpoint), keyHint: IngestKey.redacted(ingestKey), endpoint: endpoint)
    }

    private init(fingerprint: String, keyHint: String, endpoint: String) {
        self.fingerprint = fingerprint
        self.keyHint = keyHint
        self.endpoint = endpoint
    }

    /// The fingerprint of a key and an events URL (see ``fingerprint``).
    static func fingerprint(ingestKey: String, endpoint: String) -> String {
        SHA256.hex(SHA256.hmac(key: Array(ingestKey.utf8), message: Array("sdl-area-owner-v1\n\(endpoint)".utf8)))
    }

    /// Whether a client of this owner may send what `other` recorded: the same key and the same
    /// events URL.
    package func matches(_ other: AreaOwner) -> Bool {
        fingerprint == other.fingerprint && endpoint == other.endpoint
    }

    /// A short tag for file names (quarantined batches): the fingerprint's first 16 digits.
    package var tag: String { String(fingerprint.prefix(16)) }

    /// The key as a person tells keys apart: its redacted form, which keys of one project share
    /// (`sdl_sec_proj…`), and the fingerprint's first 8 digits, which differ between keys (the
    /// fingerprint is keyed with the key: it says nothing of the key's other characters).
    package var keyText: String { "\(keyHint) (fingerprint \(fingerprint.prefix(8)))" }

    /// How ``keyText`` and ``endpoint`` read in a log line or in `sdl outbox`.
    package var description: String { "key \(keyText) at \(endpoint)" }

    // MARK: The owner file

    /// The `owner` file's bytes: one JSON object and a newline.
    var fileContents: [UInt8] {
        let object: [String: Any] = ["sdl_owner": 1, "fingerprint": fingerprint, "key": keyHint, "endpoint": endpoint]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data) + [0x0A]
    }

    /// Reads an `owner` file; `nil` when it is not one this version wrote (damaged, planted,
    /// or of a later format).
    package static func parse(_ bytes: [UInt8]) -> AreaOwner? {
        guard bytes.count <= 4_096,
              let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              object["sdl_owner"] as? Int == 1,
              let fingerprint = object["fingerprint"] as? String, fingerprint.utf8.count == 64,
              fingerprint.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let keyHint = object["key"] as? String, let endpoint = object["endpoint"] as? String
        else { return nil }
        return AreaOwner(fingerprint: fingerprint, keyHint: keyHint, endpoint: endpoint)
    }

    // MARK: The rule

    /// What an area's `owner` file says about whether a client may use it.
    package enum Claim: Sendable, Equatable {
        /// No owner recorded: an area of an earlier version, a new one, or one of a client that
        /// cannot send (a malformed key, a refused endpoint). Any client may take or adopt it,
        /// as every client did before owners were recorded.
        case unclaimed
        /// Recorded for this key and endpoint.
        case ours
        /// Recorded for a key this client replaced (`previousIngestKeys`, or `rotateIngestKey(to:)`
        /// earlier in this run) at the same endpoint: taken, adopted and sent with the new key, and
        /// recorded as the new key's.
        case former
        /// Recorded for another key or endpoint: left untouched for that client.
        case another(AreaOwner)
        /// An `owner` file that cannot be read or is not one of ours: left untouched, since it
        /// may name anyone.
        case unknown
    }

    /// The claim of an area whose `owner` file read as `bytes` (`nil`: no such file), for a
    /// client whose destination is `mine` (`nil`: it cannot send) and that replaced the keys of
    /// `former` (same endpoint only: a key replaced for another endpoint is another destination).
    package static func claim(ownerFile bytes: [UInt8]?, mine: AreaOwner?, former: [AreaOwner] = []) -> Claim {
        guard let bytes else { return .unclaimed }
        guard let recorded = parse(bytes) else { return .unknown }
        if let mine, mine.matches(recorded) { return .ours }
        if let mine, former.contains(where: { $0.matches(recorded) && $0.endpoint == mine.endpoint }) { return .former }
        return .another(recorded)
    }
}

extension AreaOwner.Claim {
    /// Whether the client may take the area, adopt its files and send them.
    package var isUsable: Bool {
        switch self {
        case .unclaimed, .ours, .former: true
        case .another, .unknown: false
        }
    }
}
