/// One request that ``LocalIngest`` read, with what it answered.
public struct RecordedRequest: Sendable, Hashable {
    /// One header field as the client sent it.
    public struct Header: Sendable, Hashable {
        /// The name, in the client's spelling.
        public var name: String
        /// The value, without surrounding spaces.
        public var value: String
    }

    /// The method, for example `POST`.
    public var method: String
    /// The path, without any query string.
    public var path: String
    /// The header fields in the order sent.
    public var headers: [Header]
    /// The `SDL-Batch-ID` header, if sent.
    public var batchID: String?
    /// The body's size on the wire (compressed, if it was).
    public var bodyByteCount: Int
    /// The body after any gzip decoding; the wire bytes when it could not be decoded.
    public var body: [UInt8]
    /// The status answered (or, when ``responseDropped``, the status that was not sent).
    public var status: Int
    /// Events counted for the first time (the 202 body's `accepted`).
    public var accepted: Int
    /// Valid events not counted again (the 202 body's `duplicates`).
    public var duplicates: Int
    /// Events refused (the 202 body's `rejected`).
    public var rejections: [IngestRejection]
    /// Whether the request repeated an `SDL-Batch-ID` already counted, so nothing was counted.
    public var isReplay: Bool
    /// Whether a ``ScriptedAnswer`` decided the answer instead of the normal rules.
    public var isScripted: Bool
    /// Whether the connection was closed instead of answering (``ScriptedAnswer/dropResponseAfterCounting``).
    public var responseDropped: Bool

    /// The first value of a header, by case-insensitive name.
    /// - Parameter name: The header name, for example `"content-encoding"`.
    /// - Returns: Its value, or `nil` when the request did not carry it.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
