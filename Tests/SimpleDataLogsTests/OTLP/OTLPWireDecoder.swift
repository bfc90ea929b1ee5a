import Foundation

/// An independent decoder of OTLP logs exports in the JSON encoding, written from the `.proto`
/// field lists of opentelemetry-proto (`collector/logs/v1/logs_service.proto`, `logs/v1/logs.proto`,
/// `common/v1/common.proto`, `resource/v1/resource.proto`) and the JSON rules of its
/// `docs/specification.md`, not from the transport's encoder: `Decodable` types whose property
/// names are the fields' lowerCamelCase names, the 64-bit integers (`fixed64`, `int64`) read as
/// strings only (so a bare number fails), `uint32`/enums as numbers; and ``unknownKeys(in:)``,
/// which lists every object key that is no field of its message (a snake_case name, a typo).
enum OTLPWire {
    /// `ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }`
    struct ExportLogsServiceRequest: Decodable {
        var resourceLogs: [ResourceLogs]?
    }

    /// `ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; string schema_url = 3; }`
    struct ResourceLogs: Decodable {
        var resource: Resource?
        var scopeLogs: [ScopeLogs]?
        var schemaUrl: String?
    }

    /// `Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; repeated EntityRef entity_refs = 3; }`
    struct Resource: Decodable {
        var attributes: [KeyValue]?
        var droppedAttributesCount: UInt32?
    }

    /// `ScopeLogs { InstrumentationScope scope = 1; repeated LogRecord log_records = 2; string schema_url = 3; }`
    struct ScopeLogs: Decodable {
        var scope: InstrumentationScope?
        var logRecords: [LogRecord]?
        var schemaUrl: String?
    }

    /// `InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }`
    struct InstrumentationScope: Decodable {
        var name: String?
        var version: String?
        var attributes: [KeyValue]?
        var droppedAttributesCount: UInt32?
    }

    /// `LogRecord`: fields 1 to 12 (4 reserved). `fixed64` times as decimal strings; `SeverityNumber`
    /// an integer; `trace_id`/`span_id` hex strings.
    struct LogRecord: Decodable {
        var timeUnixNano: String?
        var observedTimeUnixNano: String?
        var severityNumber: Int?
        var severityText: String?
        var body: AnyValue?
        var attributes: [KeyValue]?
        var droppedAttributesCount: UInt32?
        var flags: UInt32?
        var traceId: String?
        var spanId: String?
        var eventName: String?

        /// The attributes by key (keys are unique in a record; a repeat is a test failure elsewhere).
        var attributeMap: [String: AnyValue] {
            Dictionary((attributes ?? []).map { ($0.key, $0.value ?? .empty) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// `KeyValue { string key = 1; AnyValue value = 2; int32 key_strindex = 3; }`
    struct KeyValue: Decodable {
        var key: String
        var value: AnyValue?
    }

    /// `AnyValue { oneof value { string_value = 1; bool_value = 2; int64 int_value = 3; double_value = 4; … } }`
    enum AnyValue: Decodable, Equatable {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case other
        /// No member set (`{}`).
        case empty

        private enum Keys: String, CodingKey {
            case stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue, bytesValue
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            guard container.allKeys.count <= 1 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a oneof with \(container.allKeys.count) members"))
            }
            if let string = try container.decodeIfPresent(String.self, forKey: .stringValue) {
                self = .string(string)
            } else if let bool = try container.decodeIfPresent(Bool.self, forKey: .boolValue) {
                self = .bool(bool)
            } else if container.contains(.intValue) {
                // int64: a decimal string in the JSON encoding. Decoding as String fails on a bare number.
                let text = try container.decode(String.self, forKey: .intValue)
                guard let value = Int64(text) else {
                    throw DecodingError.dataCorruptedError(forKey: .intValue, in: container, debugDescription: "not an int64: \(text)")
                }
                self = .int(value)
            } else if let double = try container.decodeIfPresent(Double.self, forKey: .doubleValue) {
                self = .double(double)
            } else if container.allKeys.isEmpty {
                self = .empty
            } else {
                self = .other
            }
        }
    }

    /// Each message's fields, by JSON name, with the message type of a message-typed field.
    private static let fields: [String: [String: String?]] = [
        "ExportLogsServiceRequest": ["resourceLogs": "ResourceLogs"],
        "ResourceLogs": ["resource": "Resource", "scopeLogs": "ScopeLogs", "schemaUrl": nil],
        "Resource": ["attributes": "KeyValue", "droppedAttributesCount": nil, "entityRefs": "EntityRef"],
        "EntityRef": ["schemaUrl": nil, "type": nil, "idKeys": nil, "descriptionKeys": nil],
        "ScopeLogs": ["scope": "InstrumentationScope", "logRecords": "LogRecord", "schemaUrl": nil],
        "InstrumentationScope": ["name": nil, "version": nil, "attributes": "KeyValue", "droppedAttributesCount": nil],
        "LogRecord": [
            "timeUnixNano": nil, "observedTimeUnixNano": nil, "severityNumber": nil, "severityText": nil, "body": "AnyValue",
            "attributes": "KeyValue", "droppedAttributesCount": nil, "flags": nil, "traceId": nil, "spanId": nil, "eventName": nil,
        ],
        "KeyValue": ["key": nil, "value": "AnyValue", "keyStrindex": nil],
        "AnyValue": [
            "stringValue": nil, "boolValue": nil, "intValue": nil, "doubleValue": nil, "arrayValue": "ArrayValue",
            "kvlistValue": "KeyValueList", "bytesValue": nil, "stringValueStrindex": nil,
        ],
        "ArrayValue": ["values": "AnyValue"],
        "KeyValueList": ["values": "KeyValue"],
    ]

    /// Every key of the document that is not a field of its message, as `Message.key` paths.
    /// - Parameter body: An `ExportLogsServiceRequest` in JSON.
    /// - Returns: The unknown keys; empty for a document that uses only the proto's field names.
    static func unknownKeys(in body: Data) throws -> [String] {
        var unknown: [String] = []
        func walk(_ value: Any, as message: String) {
            if let array = value as? [Any] {
                for element in array { walk(element, as: message) }
                return
            }
            guard let object = value as? [String: Any], let known = fields[message] else { return }
            for (key, child) in object {
                guard let entry = known[key] else {
                    unknown.append("\(message).\(key)")
                    continue
                }
                if let childMessage = entry { walk(child, as: childMessage) }
            }
        }
        walk(try JSONSerialization.jsonObject(with: body), as: "ExportLogsServiceRequest")
        return unknown
    }

    /// Decodes an export.
    /// - Parameter body: An `ExportLogsServiceRequest` in JSON.
    /// - Returns: The request.
    static func decode(_ body: Data) throws -> ExportLogsServiceRequest {
        try JSONDecoder().decode(ExportLogsServiceRequest.self, from: body)
    }
}
