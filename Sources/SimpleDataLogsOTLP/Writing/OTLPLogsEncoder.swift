import SimpleDataLogs

/// Turns one ingest batch into an OTLP `ExportLogsServiceRequest` in OTLP's JSON encoding
/// (opentelemetry-proto `docs/specification.md`, "JSON Protobuf Encoding"): lowerCamelCase field
/// names, 64-bit integers (`fixed64` times, `int64` values) as decimal strings, fields at their
/// default value left out.
///
/// The request has one `ResourceLogs` (the ``OTLPTransport/Resource``: `service.name`, the
/// `telemetry.sdk.*` attributes and any others given) with one `ScopeLogs` (the scope's name
/// and the SDK's version), and one `LogRecord` per event, in batch order:
///
/// | `LogRecord` field | from the event |
/// | --- | --- |
/// | `timeUnixNano` | `ts` × 1,000,000 |
/// | `observedTimeUnixNano` | the try's `sent_at` × 1,000,000 (when the SDK handed the event over) |
/// | `body` | the name, `{"stringValue": …}` |
/// | `eventName` | the name |
/// | `attributes` | `event_id`, then `device_id`, `session_id`, `app_state`, `engaged_ms` when the event has them, then each property, typed: `stringValue`, `boolValue`, `intValue` (a decimal string), `doubleValue` |
/// | `droppedAttributesCount` | properties left out because their name is one of the five above (the event's own field wins) |
///
/// No severity, trace or span id is set: an analytics event has none.
struct OTLPLogsEncoder: Sendable {
    /// `{"resourceLogs":[{"resource":{…},"scopeLogs":[{"scope":{…},"logRecords":[`: the same for every
    /// request, written once.
    private let head: [UInt8]

    /// Creates an encoder for one resource and scope.
    /// - Parameters:
    ///   - resource: The resource's attributes.
    ///   - scopeName: The instrumentation scope's name.
    init(resource: OTLPTransport.Resource, scopeName: String) {
        var writer = OTLPJSONWriter(capacity: 512)
        writer.raw(#"{"resourceLogs":[{"resource":{"attributes":["#)
        for (index, attribute) in resource.allAttributes.enumerated() {
            if index > 0 { writer.raw(",") }
            Self.attribute(attribute.key, .string(attribute.value), into: &writer)
        }
        writer.raw(#"]},"scopeLogs":[{"scope":{"name":"#)
        writer.string(scopeName)
        writer.raw(#","version":"#)
        writer.string(SimpleDataLogsVersion.current)
        writer.raw(#"},"logRecords":["#)
        head = writer.bytes
    }

    /// The attributes that come from the event's own fields; a property of the same name is
    /// left out and counted in `droppedAttributesCount`.
    static let fieldAttributeNames: Set<String> = ["event_id", "device_id", "session_id", "app_state", "engaged_ms"]

    /// The JSON body for `batch`.
    /// - Parameter batch: The batch, read from the uploader's request.
    /// - Returns: An `ExportLogsServiceRequest` in OTLP's JSON encoding.
    func encode(_ batch: IngestBatch) -> [UInt8] {
        // About 400 bytes a record with a few properties; the array grows if that is short.
        var writer = OTLPJSONWriter(capacity: head.count + 64 + batch.events.count * 400)
        writer.raw(head)
        let observed = Self.nanoseconds(fromMilliseconds: batch.sentAt)
        for (index, event) in batch.events.enumerated() {
            if index > 0 { writer.raw(",") }
            Self.logRecord(event, observed: observed, into: &writer)
        }
        writer.raw("]}]}]}")
        return writer.bytes
    }

    private static func logRecord(_ event: IngestBatch.Event, observed: UInt64, into writer: inout OTLPJSONWriter) {
        writer.raw(#"{"timeUnixNano":"#)
        writer.quotedInteger(nanoseconds(fromMilliseconds: event.timestamp))
        writer.raw(#","observedTimeUnixNano":"#)
        writer.quotedInteger(observed)
        writer.raw(#","body":{"stringValue":"#)
        writer.string(event.name)
        writer.raw(#"},"eventName":"#)
        writer.string(event.name)
        writer.raw(#","attributes":["#)
        attribute("event_id", .string(event.eventID), into: &writer)
        var present: Set<String> = ["event_id"]
        if let deviceID = event.deviceID {
            writer.raw(",")
            attribute("device_id", .string(deviceID), into: &writer)
            present.insert("device_id")
        }
        if let sessionID = event.sessionID {
            writer.raw(",")
            attribute("session_id", .string(sessionID), into: &writer)
            present.insert("session_id")
        }
        if let appState = event.appState {
            writer.raw(",")
            attribute("app_state", .string(appState), into: &writer)
            present.insert("app_state")
        }
        if let engaged = event.engagedMilliseconds {
            writer.raw(",")
            attribute("engaged_ms", .int(engaged), into: &writer)
            present.insert("engaged_ms")
        }
        var dropped = 0
        for property in event.properties {
            // The event's own field wins; OTLP says attribute keys are unique in a record.
            if present.contains(property.key) {
                dropped += 1
                continue
            }
            writer.raw(",")
            attribute(property.key, property.value, into: &writer)
        }
        writer.raw("]")
        if dropped > 0 {
            // uint32: a bare number in the JSON mapping (only 64-bit integers are strings).
            writer.raw(#","droppedAttributesCount":"#)
            writer.integer(dropped)
        }
        writer.raw("}")
    }

    /// One `KeyValue`: `{"key":…,"value":{"<type>Value":…}}`.
    private static func attribute(_ key: String, _ value: PropertyValue, into writer: inout OTLPJSONWriter) {
        writer.raw(#"{"key":"#)
        writer.string(key)
        switch value {
        case .string(let string):
            writer.raw(#","value":{"stringValue":"#)
            writer.string(string)
        case .bool(let bool):
            writer.raw(bool ? #","value":{"boolValue":true"# : #","value":{"boolValue":false"#)
        case .int(let integer):
            writer.raw(#","value":{"intValue":"#)
            writer.quotedInteger(integer)
        case .double(let double):
            writer.raw(#","value":{"doubleValue":"#)
            writer.double(double)
        }
        writer.raw("}}")
    }

    /// ms since the epoch as the `fixed64` ns OTLP takes; a time before 1970, or one too far
    /// ahead for 64 bits, becomes 0, OTLP's "unknown" (the ingest accepts neither).
    /// - Parameter milliseconds: ms since the Unix epoch.
    /// - Returns: ns since the Unix epoch, or 0.
    static func nanoseconds(fromMilliseconds milliseconds: Int64) -> UInt64 {
        guard milliseconds >= 0 else { return 0 }
        let (product, overflow) = UInt64(milliseconds).multipliedReportingOverflow(by: 1_000_000)
        return overflow ? 0 : product
    }
}
