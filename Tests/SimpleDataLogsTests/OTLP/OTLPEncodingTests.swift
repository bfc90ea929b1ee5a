import Foundation
import Testing
@testable import SimpleDataLogs
@testable import SimpleDataLogsOTLP
@testable import SimpleDataLogsTesting

/// What the OTLP transport sends for a batch, read back with ``OTLPWire`` (the independent decoder
/// written from the `.proto` field lists): no sockets, no client. The uploader's own request
/// builder and event encoder make the input, so the transport reads what the SDK really sends.
@Suite("OTLP transport: the export it writes, decoded independently")
struct OTLPEncodingTests {
    static let sentAt: Int64 = 1_764_670_000_123
    static let eventID = UUID(uuidString: "6F1C2B9E-8A4D-4F7E-9A51-2F0C7D3B1E55")!

    /// An event with every field the ingest body can carry.
    static func fullEvent() -> Event {
        var event = Event.live(
            name: "export_finished", id: eventID, timestamp: 1_764_669_999_001,
            properties: [
                "format": .string("png"), "duration_ms": .int(412), "is_pro": .bool(true), "ratio": .double(0.5),
                "whole": .double(5), "big": .int(Int64.max), "negative": .int(-7), "tiny": .double(1e-05),
            ]
        )
        event.deviceID = "device-1"
        event.sessionID = "session-1"
        event.appState = .background
        event.engagedMilliseconds = 1_234
        return event
    }

    /// The uploader's request for `events`, built by the SDK's own builder.
    static func request(_ events: [Event], gzip: Bool) -> UploadRequest {
        let builder = UploadRequestBuilder(
            eventsURL: URL(string: "http://127.0.0.1:9/v1/events")!, ingestKey: "sdl_sec_test000000000", osName: "Linux", osVersion: "6.8"
        )
        return builder.request(batchID: UUID(), payloads: events.map { EventEncoder.encode($0) }, sentAt: sentAt, gzip: gzip)
    }

    static func encoder(attributes: [String: String] = [:]) -> OTLPLogsEncoder {
        OTLPLogsEncoder(resource: OTLPTransport.Resource(serviceName: "checkout", attributes: attributes), scopeName: "simpledatalogs")
    }

    /// The export's JSON, uncompressed.
    static func exportJSON(_ events: [Event], gzip: Bool = false, attributes: [String: String] = [:]) throws -> (json: Data, export: OTLPTransport.Export) {
        let export = try OTLPTransport.export(for: request(events, gzip: gzip), encoder: encoder(attributes: attributes)).get()
        guard export.gzipped else { return (Data(export.body), export) }
        return (Data(try Gzip.inflate(export.body, limit: 1 << 24).get()), export)
    }

    @Test("each event is one LogRecord: ts and sent_at as fixed64 ns strings, the name as body and eventName, every field and property a typed attribute")
    func fullRecord() throws {
        let (json, _) = try Self.exportJSON([Self.fullEvent()])
        #expect(try OTLPWire.unknownKeys(in: json).isEmpty, "only the proto's lowerCamelCase field names")
        let decoded = try OTLPWire.decode(json)
        let resourceLogs = try #require(decoded.resourceLogs)
        #expect(resourceLogs.count == 1)
        let scopeLogs = try #require(resourceLogs.first?.scopeLogs)
        #expect(scopeLogs.count == 1)
        #expect(scopeLogs.first?.scope?.name == "simpledatalogs" && scopeLogs.first?.scope?.version == SimpleDataLogsVersion.current)
        let records = try #require(scopeLogs.first?.logRecords)
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.timeUnixNano == "1764669999001000000")
        #expect(record.observedTimeUnixNano == "1764670000123000000")
        #expect(record.body == .string("export_finished"))
        #expect(record.eventName == "export_finished")
        #expect(record.severityNumber == nil && record.traceId == nil && record.spanId == nil && record.flags == nil)
        #expect(record.droppedAttributesCount == nil)
        let attributes = record.attributeMap
        #expect(record.attributes?.count == attributes.count, "keys are unique")
        #expect(attributes == [
            "event_id": .string("6f1c2b9e-8a4d-4f7e-9a51-2f0c7d3b1e55"), "device_id": .string("device-1"),
            "session_id": .string("session-1"), "app_state": .string("background"), "engaged_ms": .int(1_234),
            "format": .string("png"), "duration_ms": .int(412), "is_pro": .bool(true), "ratio": .double(0.5),
            "whole": .double(5), "big": .int(Int64.max), "negative": .int(-7), "tiny": .double(1e-05),
        ])
        #expect(record.attributes?.prefix(5).map(\.key) == ["event_id", "device_id", "session_id", "app_state", "engaged_ms"])
    }

    @Test("64-bit integers are JSON strings and doubles bare numbers, on the wire itself")
    func integerSpelling() throws {
        let (json, _) = try Self.exportJSON([Self.fullEvent()])
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#"{"intValue":"9223372036854775807"}"#))
        #expect(text.contains(#"{"intValue":"-7"}"#))
        #expect(text.contains(#"{"doubleValue":5.0}"#))
        #expect(text.contains(#"{"boolValue":true}"#))
        #expect(text.contains(#""timeUnixNano":"1764669999001000000""#))
    }

    @Test("the resource carries service.name and telemetry.sdk.*, then the caller's attributes sorted; the caller cannot replace the first four")
    func resource() throws {
        let (json, _) = try Self.exportJSON([Self.fullEvent()], attributes: ["service.name": "other", "deployment.environment": "prod", "a.first": "1"])
        let resource = try #require(try OTLPWire.decode(json).resourceLogs?.first?.resource)
        #expect(resource.attributes?.map(\.key) == [
            "service.name", "telemetry.sdk.name", "telemetry.sdk.language", "telemetry.sdk.version", "a.first", "deployment.environment",
        ])
        #expect(resource.attributes?.map(\.value) == [
            .string("checkout"), .string("simpledatalogs-swift"), .string("swift"), .string(SimpleDataLogsVersion.current),
            .string("1"), .string("prod"),
        ])
    }

    @Test("a scope name given replaces simpledatalogs; the version stays the SDK's")
    func scopeName() throws {
        let encoder = OTLPLogsEncoder(resource: OTLPTransport.Resource(serviceName: "s", attributes: [:]), scopeName: "checkout.analytics")
        let export = try OTLPTransport.export(for: Self.request([Self.fullEvent()], gzip: false), encoder: encoder).get()
        let scope = try #require(try OTLPWire.decode(Data(export.body)).resourceLogs?.first?.scopeLogs?.first?.scope)
        #expect(scope.name == "checkout.analytics" && scope.version == SimpleDataLogsVersion.current)
    }

    @Test("strings survive escaping: quotes, backslashes, control characters, non-ASCII and astral characters")
    func escaping() throws {
        let awkward = "quote \" backslash \\ newline \n tab \t bell \u{07} é 日本 🎉 \u{2028}"
        var event = Event.live(name: awkward, id: UUID(), timestamp: 1, properties: [awkward: .string(awkward)])
        event.deviceID = awkward
        let (json, _) = try Self.exportJSON([event])
        let record = try #require(try OTLPWire.decode(json).resourceLogs?.first?.scopeLogs?.first?.logRecords?.first)
        #expect(record.body == .string(awkward) && record.eventName == awkward)
        #expect(record.attributeMap[awkward] == .string(awkward))
        #expect(record.attributeMap["device_id"] == .string(awkward))
    }

    @Test("a property named like one of the event's fields is left out and counted in droppedAttributesCount; the event's field wins")
    func collidingProperty() throws {
        var event = Event.live(name: "e", id: Self.eventID, timestamp: 1, properties: ["event_id": "mine", "device_id": "mine too", "keep": 1])
        event.deviceID = "real"
        let (json, _) = try Self.exportJSON([event])
        let record = try #require(try OTLPWire.decode(json).resourceLogs?.first?.scopeLogs?.first?.logRecords?.first)
        #expect(record.droppedAttributesCount == 2)
        #expect(record.attributeMap == [
            "event_id": .string("6f1c2b9e-8a4d-4f7e-9a51-2f0c7d3b1e55"), "device_id": .string("real"), "keep": .int(1),
        ])
        // A property named session_id is kept when the event has no session of its own.
        let unsessioned = Event.live(name: "e", id: Self.eventID, timestamp: 1, properties: ["session_id": "theirs"])
        let other = try #require(try OTLPWire.decode(Self.exportJSON([unsessioned]).json).resourceLogs?.first?.scopeLogs?.first?.logRecords?.first)
        #expect(other.droppedAttributesCount == nil && other.attributeMap["session_id"] == .string("theirs"))
    }

    @Test("records keep batch order; a gzip request gives a gzip export, a plain one a plain export")
    func orderAndCompression() throws {
        let events = (0..<50).map { Event.live(name: "e\($0)", id: UUID(), timestamp: Int64($0), properties: ["seq": .int(Int64($0))]) }
        for gzip in [true, false] {
            let (json, export) = try Self.exportJSON(events, gzip: gzip)
            #expect(export.gzipped == gzip && export.eventCount == 50)
            let records = try #require(try OTLPWire.decode(json).resourceLogs?.first?.scopeLogs?.first?.logRecords)
            #expect(records.map(\.eventName) == events.map(\.name))
            #expect(records.map { $0.attributeMap["seq"] } == (0..<50).map { .int(Int64($0)) })
        }
    }

    @Test("a body that is no ingest batch is answered 400 without sending, so the uploader sets it aside")
    func unreadableBatch() async throws {
        let inner = RecordingTransport()
        let otlp = OTLPTransport(collector: URL(string: "http://127.0.0.1:9")!, serviceName: "s", inner: inner)
        for (body, encoding) in [(Data("not json".utf8), nil), (Data([0x1f, 0x8b, 0, 1, 2]), "gzip"), (Data(#"{"sent_at":1}"#.utf8), nil)] as [(Data, String?)] {
            var headers = ["Content-Type": "application/json"]
            if let encoding { headers["Content-Encoding"] = encoding }
            let answer = try await otlp.send(UploadRequest(url: URL(string: "http://127.0.0.1:9/v1/events")!, headers: headers, body: body))
            #expect(answer.status == 400)
            #expect(AnswerPolicy.errorMessage(in: answer.body)?.hasPrefix("the OTLP transport could not read the batch") == true)
        }
        #expect(inner.requests.isEmpty, "nothing was sent")
    }

    @Test("ms to ns: exact, and 0 (OTLP's unknown) before 1970 or past 64 bits")
    func nanoseconds() {
        #expect(OTLPLogsEncoder.nanoseconds(fromMilliseconds: 1) == 1_000_000)
        #expect(OTLPLogsEncoder.nanoseconds(fromMilliseconds: 1_764_669_999_001) == 1_764_669_999_001_000_000)
        #expect(OTLPLogsEncoder.nanoseconds(fromMilliseconds: -1) == 0)
        #expect(OTLPLogsEncoder.nanoseconds(fromMilliseconds: Int64.max) == 0)
    }

    @Test("the logs URL is the collector's with /v1/logs, a path prefix kept and a trailing slash dropped")
    func logsURL() {
        #expect(OTLPTransport.logsURL(forCollector: URL(string: "http://otel:4318")!).absoluteString == "http://otel:4318/v1/logs")
        #expect(OTLPTransport.logsURL(forCollector: URL(string: "https://gw.example.com/otlp/")!).absoluteString == "https://gw.example.com/otlp/v1/logs")
    }

    @Test("the batch reader keeps integers, doubles, booleans and strings apart, and refuses what is no batch")
    func batchReader() throws {
        let body = #"{"sent_at":5,"events":[{"event":"a","event_id":"x","ts":1,"props":{"i":1,"d":1.0,"e":1e2,"b":false,"s":"1","u":"\u00e9\ud83c\udf89"}}]}"#
        let batch = try IngestBatch.read(Array(body.utf8)).get()
        #expect(batch.sentAt == 5)
        // By name: the batch's member order is its encoder's dictionary order, which means nothing.
        let properties = Dictionary(uniqueKeysWithValues: batch.events.first?.properties.map { ($0.key, $0.value) } ?? [])
        #expect(properties == ["i": .int(1), "d": .double(1), "e": .double(100), "b": .bool(false), "s": .string("1"), "u": .string("é🎉")])
        #expect(batch.events.first?.properties.map(\.key) == ["b", "d", "e", "i", "s", "u"], "read in name order, so the export is the same for the same batch")
        for broken in [#"{"events":[]}"#, #"{"sent_at":1,"events":[1]}"#, #"{"sent_at":1,"events":[{"event":"a","event_id":"x","ts":1.5}]}"#,
                       #"{"sent_at":1,"events":[{"event":"a","event_id":"x","ts":1,"props":{"n":null}}]}"#, #"{"sent_at":1,"events":[]"#,
                       #"{"sent_at":1,"events":[{"event":"a","event_id":"x","ts":1,"device_id":3}]}"#, #""\ud800""#] {
            #expect(throws: IngestBatch.Failure.self, "\(broken)") { try IngestBatch.read(Array(broken.utf8)).get() }
        }
    }
}
