import Foundation
import SimpleDataLogs
import SDLJSON

/// Turns one HTTP request into ``LocalCollector``'s answer, as an OpenTelemetry Collector's
/// OTLP/HTTP receiver answers a logs export in JSON: path (404), method (405), content type
/// (415: JSON only here), encoding (415 unless gzip or none), size after decoding (413), body
/// (400 with a `Status`), then the script, then 200 with an empty `partialSuccess`.
final class CollectorHandler: SocketRequestHandler {
    /// OTLP/HTTP's default path for logs.
    static let logsPath = "/v1/logs"

    /// What the collector remembers, under one lock.
    struct State: Sendable {
        var requests: [CollectorRequest] = []
        var script: [CollectorAnswer] = []
        var acceptedLogRecords = 0
    }

    let state = Locked(State())
    let maxBodyBytes: Int

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    func shouldCloseBeforeReading() -> Bool { false }

    func reply(to failure: HTTPRequestParser.Failure) -> HTTPResponse {
        .json(failure.status, Self.status(failure.status, failure.message), keepAlive: false)
    }

    func reply(to request: HTTPRequest) -> IngestHandler.Reply {
        let head = request.head
        var record = CollectorRequest(
            method: head.method, path: head.path,
            headers: head.headers.map { RecordedRequest.Header(name: $0.name, value: $0.value) },
            body: Data(request.body), logRecordCount: 0, status: 0
        )
        let keepAlive = head.keepAlive
        func answer(_ status: Int, _ body: String, headers: [(name: String, value: String)] = [], accepted: Int = 0) -> IngestHandler.Reply {
            record.status = status
            state.withLock { state in
                state.requests.append(record)
                state.acceptedLogRecords += accepted
            }
            return IngestHandler.Reply(response: .json(status, body, headers: headers, keepAlive: keepAlive), delay: .zero)
        }
        func failure(_ status: Int, _ message: String) -> IngestHandler.Reply { answer(status, Self.status(status, message)) }

        guard head.path == Self.logsPath else { return failure(404, "no such path: \(head.path); OTLP/HTTP logs go to \(Self.logsPath)") }
        guard head.method == "POST" else { return failure(405, "method \(head.method) not allowed; use POST") }
        let contentType = (head.header("Content-Type") ?? "").lowercased()
        guard contentType.hasPrefix("application/json") else {
            return failure(415, "unsupported Content-Type \(contentType); this stand-in takes application/json")
        }
        var body = request.body
        switch head.header("Content-Encoding")?.lowercased() {
        case nil, "identity"?:
            break
        case "gzip"?:
            switch Gzip.inflate(body, limit: maxBodyBytes) {
            case .success(let inflated): body = inflated
            case .failure(.tooLarge): return failure(413, "the body inflates past \(maxBodyBytes) bytes")
            case .failure(.corrupt(let why)): return failure(400, "the gzip body does not inflate: \(why)")
            }
            record.body = Data(body)
        case let other?:
            return failure(415, "unsupported Content-Encoding \(other)")
        }
        guard body.count <= maxBodyBytes else { return failure(413, "the body is over \(maxBodyBytes) bytes") }
        let root: JSONValue
        switch JSONParser.parse(body) {
        case .success(let value): root = value
        case .failure(let why): return failure(400, "the body is not JSON: \(why.message)")
        }
        guard case .object = root else { return failure(400, "the body is not an ExportLogsServiceRequest object") }
        record.logRecordCount = Self.logRecordCount(in: root)
        let scripted: CollectorAnswer? = state.withLock { $0.script.isEmpty ? nil : $0.script.removeFirst() }
        guard let scripted else {
            return answer(200, #"{"partialSuccess":{}}"#, accepted: record.logRecordCount)
        }
        if scripted.status == 200, let rejected = scripted.rejectedLogRecords {
            let body = #"{"partialSuccess":{"rejectedLogRecords":"\#(rejected)","errorMessage":\#(JSONWriter.quoted(scripted.message))}}"#
            return answer(200, body, accepted: max(0, record.logRecordCount - rejected))
        }
        let headers = scripted.retryAfter.map { [(name: "Retry-After", value: $0)] } ?? []
        let accepted = (200...299).contains(scripted.status) ? record.logRecordCount : 0
        return answer(scripted.status, Self.status(scripted.status, scripted.message), headers: headers, accepted: accepted)
    }

    /// `resourceLogs[].scopeLogs[].logRecords[]`, counted; anything not of that shape counts 0.
    static func logRecordCount(in root: JSONValue) -> Int {
        guard case .object(let request) = root, case .array(let resources)? = request["resourceLogs"] else { return 0 }
        var count = 0
        for case .object(let resource) in resources {
            guard case .array(let scopes)? = resource["scopeLogs"] else { continue }
            for case .object(let scope) in scopes {
                if case .array(let records)? = scope["logRecords"] { count += records.count }
            }
        }
        return count
    }

    /// A `google.rpc.Status` in the JSON encoding: the gRPC code that matches the HTTP status
    /// (as the collector maps them) and the message.
    static func status(_ httpStatus: Int, _ message: String) -> String {
        let code: Int
        switch httpStatus {
        case 400: code = 3 // INVALID_ARGUMENT
        case 401: code = 16 // UNAUTHENTICATED
        case 404: code = 5 // NOT_FOUND
        case 413: code = 11 // OUT_OF_RANGE
        case 429: code = 8 // RESOURCE_EXHAUSTED
        case 503: code = 14 // UNAVAILABLE
        default: code = 2 // UNKNOWN
        }
        return #"{"code":\#(code),"message":\#(JSONWriter.quoted(message))}"#
    }
}
