/// The ingest's limits (INGEST-API.md), in one place, so that the validator, the batcher and the
/// local ingest (through `package` access) agree.
package enum EventLimits {
    /// An event name: 1 to 200 UTF-8 bytes, no control characters.
    package static let maxNameBytes = 200
    /// A device id: 1 to 200 bytes.
    package static let maxDeviceIDBytes = 200
    /// An event id: 1 to 64 bytes.
    package static let maxEventIDBytes = 64
    /// At most 200 property keys per event.
    package static let maxPropertyCount = 200
    /// A property key: 1 to 200 bytes.
    package static let maxPropertyKeyBytes = 200
    /// A string value: at most 8,192 bytes.
    package static let maxStringValueBytes = 8_192
    /// A request body before compression: at most 256 KiB.
    package static let maxBodyBytes = 262_144
    /// At most 1,000 events per request.
    package static let maxEventsPerRequest = 1_000
    /// The SDK keeps back-dated events up to this many days old (the edge allows 3,652).
    package static let maxBackdateDays: Int64 = 3_650
    package static let millisecondsPerDay: Int64 = 86_400_000
    /// The bytes of a request body around its events: `{"sent_at":<13 digits>,"events":[` and `]}`.
    package static let bodyOverheadBytes = 64
}
