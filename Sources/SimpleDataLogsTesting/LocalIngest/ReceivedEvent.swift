public import SimpleDataLogs

/// One event as the local ingest received it: the wire fields, typed, and the batch it came in.
public struct ReceivedEvent: Sendable, Hashable {
    /// The event name (`event`).
    public var name: String
    /// The deduplication key (`event_id`).
    public var eventID: String
    /// When the event happened (`ts`), in milliseconds since the Unix epoch.
    public var timestamp: Int64
    /// The device id (`device_id`), when the event carried one.
    public var deviceID: String?
    /// The session id (`session_id`), when the event carried one.
    public var sessionID: String?
    /// `"active"` or `"background"` (`app_state`), when activity tracking is on.
    public var appState: String?
    /// Engaged time in milliseconds (`engaged_ms`), when activity tracking is on.
    public var engagedMilliseconds: Int64?
    /// The properties (`props`), typed; empty when the event had none.
    public var properties: [String: PropertyValue]
    /// The `SDL-Batch-ID` header of the request that carried the event, if it had one.
    public var batchID: String?
    /// The request's `sent_at`, in milliseconds since the Unix epoch.
    public var sentAt: Int64

    /// Creates a received event; the local ingest builds these, tests may build expected ones.
    /// - Parameters:
    ///   - name: The event name.
    ///   - eventID: The event id.
    ///   - timestamp: `ts`, in milliseconds since the Unix epoch.
    ///   - deviceID: The device id, if any.
    ///   - sessionID: The session id, if any.
    ///   - appState: `"active"` or `"background"`, if any.
    ///   - engagedMilliseconds: `engaged_ms`, if any.
    ///   - properties: The properties.
    ///   - batchID: The batch id of the request, if any.
    ///   - sentAt: The request's `sent_at`.
    public init(
        name: String, eventID: String, timestamp: Int64, deviceID: String? = nil, sessionID: String? = nil,
        appState: String? = nil, engagedMilliseconds: Int64? = nil, properties: [String: PropertyValue] = [:],
        batchID: String? = nil, sentAt: Int64 = 0
    ) {
        self.name = name
        self.eventID = eventID
        self.timestamp = timestamp
        self.deviceID = deviceID
        self.sessionID = sessionID
        self.appState = appState
        self.engagedMilliseconds = engagedMilliseconds
        self.properties = properties
        self.batchID = batchID
        self.sentAt = sentAt
    }
}
