import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsOTLP
@testable import SimpleDataLogsTesting
import SDLJSON

/// Passes each of the uploader's requests on to the OTLP transport and keeps a copy: the ingest
/// batch the SDK would have sent, the reference each `LogRecord` is checked against.
private final class IngestTee: Transport {
    let next: any Transport
    private let sent = Locked<[UploadRequest]>([])

    init(_ next: any Transport) { self.next = next }

    var requests: [UploadRequest] { sent.withLock { $0 } }

    func send(_ request: UploadRequest) async throws -> UploadResponse {
        sent.withLock { $0.append(request) }
        return try await next.send(request)
    }
}

/// A client configured with the OTLP transport (inner: the default URLSession transport), a
/// collector stand-in on 127.0.0.1, and the tee between them.
private struct OTLPDelivery {
    let collector: LocalCollector
    let tee: IngestTee
    let test: TestClient

    var client: SimpleDataLogsClient { test.client }
}

private func withOTLPDelivery(
    adjust: @escaping @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in },
    _ body: (OTLPDelivery) async throws -> Void
) async throws {
    let collector = try LocalCollector()
    let otlp = OTLPTransport(
        collector: collector.endpoint, serviceName: "otlp-tests", resourceAttributes: ["host.name": "ci"],
        headers: ["Authorization": "Bearer collector-token"]
    )
    let tee = IngestTee(otlp)
    let test = TestClient(key: OTLPTransport.ingestKey, endpoint: collector.endpoint, adjust: { configuration in
        // The documented configuration, with the tee slipped in front of the transport it set.
        configuration = .server(sendingTo: otlp, storageDirectory: configuration.storageDirectory)
        #expect(configuration.transport is OTLPTransport && configuration.ingestKey == OTLPTransport.ingestKey)
        #expect(configuration.endpoint == collector.endpoint && configuration.batchSize == 1_000 && configuration.maxConcurrentRequests == 4)
        configuration.transport = tee
        adjust(&configuration)
    })
    let delivery = OTLPDelivery(collector: collector, tee: tee, test: test)
    do {
        try await body(delivery)
    } catch {
        collector.stop()
        await test.tearDown()
        throw error
    }
    await test.tearDown()
    collector.stop()
}

/// One `LogRecord`'s attributes, as the reference says they must be: the ingest event's fields
/// and properties, typed (the testing kit's strict parser keeps integers, numbers and booleans apart).
private func expectedAttributes(of event: [String: JSONValue]) -> [String: OTLPWire.AnyValue] {
    var attributes: [String: OTLPWire.AnyValue] = [:]
    for field in ["event_id", "device_id", "session_id", "app_state"] {
        if case .string(let value)? = event[field] { attributes[field] = .string(value) }
    }
    if case .integer(let engaged)? = event["engaged_ms"] { attributes["engaged_ms"] = .int(engaged) }
    if case .object(let properties)? = event["props"] {
        for (key, value) in properties where attributes[key] == nil {
            switch value {
            case .string(let string): attributes[key] = .string(string)
            case .integer(let integer): attributes[key] = .int(integer)
            case .number(let double): attributes[key] = .double(double)
            case .bool(let bool): attributes[key] = .bool(bool)
            default: attributes[key] = .other
            }
        }
    }
    return attributes
}

/// The body of a request, inflated when gzipped.
private func plainBody(_ body: Data, gzipped: Bool) throws -> [UInt8] {
    gzipped ? try Gzip.inflate(Array(body), limit: 1 << 26).get() : Array(body)
}

@Suite("OTLP transport: a client delivering to a collector stand-in over real HTTP", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct OTLPDeliveryTests {
    @Test("10,000 events arrive as 10,000 LogRecords, each with every attribute of the event the ingest would have received", .tags(.burst))
    func tenThousandEvents() async throws {
        try await withOTLPDelivery { delivery in
            delivery.client.setDeviceID("host-7")
            for seq in 0..<10_000 {
                delivery.client.track("item_\(seq % 7)", properties: [
                    "seq": .int(Int64(seq)), "label": .string("item \(seq) \"quoted\" é"), "ratio": .double(Double(seq) / 8),
                    "even": .bool(seq % 2 == 0), "big": .int(Int64.max - Int64(seq)),
                ])
            }
            let flushed = try await withTimeLimit(.seconds(120), waitingFor: "10,000 events to reach the collector") { [client = delivery.client] in
                await client.flush()
            }
            // 10,000 is ten whole batches: on a loaded machine the uploader may have delivered them
            // all before `flush()` began (seen: `delivered: 0`), so the total is the counters'.
            #expect(flushed.remaining == 0, "\(flushed)")
            #expect(delivery.collector.acceptedLogRecords == 10_000)
            let counters = delivery.client.counters
            #expect(counters.delivered == 10_000 && counters.isBalanced, "\(counters)")

            // What went over the wire to the collector, decoded independently.
            let exports = delivery.collector.requests
            #expect(exports.allSatisfy { $0.path == "/v1/logs" && $0.method == "POST" && $0.status == 200 })
            #expect(exports.allSatisfy { $0.header("Content-Type") == "application/json" && $0.header("Content-Encoding") == "gzip" })
            #expect(exports.allSatisfy { $0.header("Authorization") == "Bearer collector-token" }, "the transport's headers; the ingest key never goes to the collector")
            #expect(exports.allSatisfy { $0.header("User-Agent")?.hasPrefix("simpledatalogs-swift/") == true })
            var records: [String: (record: OTLPWire.LogRecord, batchID: String?)] = [:]
            for export in exports {
                #expect(try OTLPWire.unknownKeys(in: export.body).isEmpty)
                let decoded = try OTLPWire.decode(export.body)
                let resource = try #require(decoded.resourceLogs?.first?.resource?.attributes)
                #expect(resource.first { $0.key == "service.name" }?.value == .string("otlp-tests"))
                #expect(resource.first { $0.key == "host.name" }?.value == .string("ci"))
                for record in decoded.resourceLogs?.first?.scopeLogs?.first?.logRecords ?? [] {
                    guard case .string(let id)? = record.attributeMap["event_id"] else {
                        Issue.record("a record without event_id")
                        continue
                    }
                    #expect(records[id] == nil, "each event once")
                    records[id] = (record, export.header("SDL-Batch-ID"))
                }
            }
            #expect(records.count == 10_000)

            // The reference: each ingest batch the uploader handed over, read by the testing kit.
            var seqs: [Int64] = []
            var checked = 0
            for request in delivery.tee.requests {
                let body = try plainBody(request.body, gzipped: request.header("Content-Encoding") == "gzip")
                guard case .object(let batch) = try JSONParser.parse(body).get(), case .integer(let sentAt)? = batch["sent_at"],
                      case .array(let events)? = batch["events"] else {
                    Issue.record("the uploader's request is no ingest batch")
                    continue
                }
                for case .object(let event) in events {
                    guard case .string(let id)? = event["event_id"], let (record, batchID) = records[id] else {
                        Issue.record("an event the collector did not receive")
                        continue
                    }
                    #expect(batchID == request.header("SDL-Batch-ID"))
                    guard case .string(let name)? = event["event"], case .integer(let ts)? = event["ts"] else { continue }
                    #expect(record.body == .string(name) && record.eventName == name)
                    #expect(record.timeUnixNano == String(ts * 1_000_000))
                    #expect(record.observedTimeUnixNano == String(sentAt * 1_000_000))
                    let expected = expectedAttributes(of: event)
                    #expect(record.attributeMap == expected, "\(id)")
                    #expect(record.attributes?.count == expected.count)
                    if case .int(let seq)? = record.attributeMap["seq"] {
                        seqs.append(seq)
                        #expect(record.attributeMap["big"] == .int(Int64.max - seq))
                        #expect(record.attributeMap["even"] == .bool(seq % 2 == 0))
                        #expect(record.attributeMap["ratio"] == .double(Double(seq) / 8))
                        #expect(record.attributeMap["label"] == .string("item \(seq) \"quoted\" é"))
                        #expect(name == "item_\(seq % 7)")
                    }
                    #expect(record.attributeMap["device_id"] == .string("host-7"))
                    checked += 1
                }
            }
            #expect(checked == 10_000)
            #expect(seqs.sorted() == (0..<10_000).map(Int64.init))
        }
    }

    @Test("429 with Retry-After: no export before the time the collector asked for, then the batch goes (on the manual clock)")
    func throttled() async throws {
        try await withOTLPDelivery { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.collector.script([.status(429, retryAfter: "120", message: "slow down")])
            for seq in 0..<3 { delivery.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            let first = await delivery.client.flush()
            #expect(first.delivered == 0 && first.remaining == 3)
            guard case .willRetry(_, let after, let reason)? = try await nextElement(of: reports, waitingFor: "the retry report after the 429") else {
                Issue.record("expected a retry report")
                return
            }
            #expect(after >= .seconds(120) && after <= .seconds(300), "waits \(after)")
            #expect(reason.contains("429"))
            await delivery.client.flush()
            #expect(delivery.collector.requests.count == 1, "a flush waits for the Retry-After too")
            try #require(await delivery.test.clock.waitForSleepers(count: 1), "the backoff timer")
            delivery.test.clock.advance(by: after)
            guard case .delivered(_, let delivered, let rejected)? = try await nextElement(of: reports, waitingFor: "the delivery after the wait") else {
                Issue.record("expected a delivery report")
                return
            }
            #expect(delivered == 3 && rejected.isEmpty)
            #expect(delivery.collector.acceptedLogRecords == 3 && delivery.collector.requests.map(\.status) == [429, 200])
            #expect(delivery.client.counters.delivered == 3 && delivery.client.counters.isBalanced)
        }
    }

    @Test("400 sets the batch aside: kept on disk, counted, logged with the collector's message, never resent")
    func badData() async throws {
        try await withOTLPDelivery(adjust: { $0.logLevel = .info }) { delivery in
            delivery.collector.script([.status(400, message: "ReadObject: unknown field")])
            for seq in 0..<3 { delivery.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await delivery.client.flush()
            await delivery.client.flush()
            #expect(delivery.collector.requests.map(\.status) == [400], "never resent")
            let counters = delivery.client.counters
            #expect(counters.setAside == 3 && counters.delivered == 0 && counters.isBalanced, "\(counters)")
            #expect(delivery.test.log.lines(containing: "ReadObject: unknown field").count >= 1)
            // The milestone line names the transport that decides where requests go (here the
            // test's tee around the OTLP transport), not only the ingest path the uploader built.
            let configured = delivery.test.log.lines(containing: "Configured: sending through ")
            #expect(configured.count == 1 && configured[0].message.contains("(for \(delivery.collector.endpoint.absoluteString)/v1/events; the transport decides where)"), "\(configured)")
        }
    }

    @Test("a partial success counts that many events rejected and the rest delivered, reports the collector's message, and never resends")
    func partialSuccess() async throws {
        try await withOTLPDelivery { delivery in
            let reports = delivery.client.deliveryReports()
            delivery.collector.script([.partialSuccess(rejected: 2, message: "timestamps too old")])
            for seq in 0..<5 { delivery.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            await delivery.client.flush()
            guard case .delivered(_, let delivered, let rejected)? = try await nextElement(of: reports, waitingFor: "the delivery report") else {
                Issue.record("expected a delivery report")
                return
            }
            #expect(delivered == 3 && rejected.count == 2)
            #expect(rejected.allSatisfy { $0.index == nil && $0.eventID == nil && $0.reason.hasSuffix("timestamps too old") })
            await delivery.client.flush()
            #expect(delivery.collector.requests.count == 1, "never resent")
            #expect(delivery.collector.acceptedLogRecords == 3)
            let counters = delivery.client.counters
            #expect(counters.rejectedByIngest == 2 && counters.delivered == 3 && counters.isBalanced, "\(counters)")
        }
    }

    @Test("a 415 to a gzip export is tried once more uncompressed, as with the ingest")
    func compression() async throws {
        try await withOTLPDelivery { delivery in
            delivery.collector.script([.status(415, message: "no gzip here")])
            delivery.client.track("e")
            await delivery.client.flush()
            let exports = delivery.collector.requests
            #expect(exports.map(\.status) == [415, 200])
            #expect(exports.map { $0.header("Content-Encoding") } == ["gzip", nil])
            #expect(delivery.collector.acceptedLogRecords == 1)
        }
    }
}
