import SDLJSON
import SimpleDataLogs
import Foundation

/// The collector's answer to an OTLP/HTTP export, restated as the ingest answer the SDK's uploader
/// understands (INGEST-API.md, "Responses"), so the journal, caps, counters and metrics work
/// unchanged. A pure function; the table:
///
/// | collector | the uploader sees | so the SDK |
/// | --- | --- | --- |
/// | 2xx, no `partialSuccess` (or `rejectedLogRecords` 0) | 202, all accepted | deletes the batch, counts every event delivered |
/// | 2xx with `partialSuccess.rejectedLogRecords` n | 202 with n entries in `rejected` (no index, no `event_id`), n capped at the batch's size | counts n rejected and the rest delivered, never resends |
/// | 400 | 400 with the `Status` message as `error` | sets the batch aside (kept on disk, not resent) |
/// | 429, 502, 503, 504, with or without `Retry-After` | the same status and `Retry-After` | backs off, at least as long as `Retry-After` says |
/// | 401, 413, 415 | the same status | pauses for the key, splits the batch, resends uncompressed: the SDK's table |
/// | any other status | the same status | backs off (the SDK's table; OTLP would drop the batch, see below) |
///
/// Two honest limits. OTLP's partial success gives a *count* of rejected records, not which
/// ones, so the rejections the SDK reports (`DeliveryReport`) carry no index and no event id,
/// only the collector's `errorMessage`; the counters are exact. And OTLP says a client must not
/// retry any 4xx or 5xx other than 429, 502, 503 and 504; the SDK keeps such a batch on disk and
/// backs off instead (a 404 from a wrong collector path, a 500 from a broken exporter), because
/// an operator can fix those and a dropped event cannot come back. The outbox's caps bound what waits.
enum OTLPAnswer {
    /// Restates the collector's answer.
    /// - Parameters:
    ///   - response: What the collector answered to `/v1/logs`.
    ///   - eventCount: How many log records (events) the export carried.
    /// - Returns: The ingest answer for the uploader.
    static func ingestResponse(for response: UploadResponse, eventCount: Int) -> UploadResponse {
        switch response.status {
        case 200...299:
            let partial = partialSuccess(in: response.body)
            let rejected = min(max(partial.rejected, 0), Int64(eventCount))
            let reason = "the OpenTelemetry collector rejected \(partial.rejected) of \(eventCount) log records (OTLP partial success, which does not say which): "
                + (partial.message ?? "no errorMessage")
            var body = OTLPJSONWriter(capacity: 64 + Int(rejected) * (reason.utf8.count + 16))
            body.raw(#"{"accepted":"#)
            body.integer(Int64(eventCount) - rejected)
            body.raw(#","duplicates":0,"rejected":["#)
            for index in 0..<rejected {
                if index > 0 { body.raw(",") }
                body.raw(#"{"reason":"#)
                body.string(reason)
                body.raw("}")
            }
            body.raw("]}")
            return UploadResponse(
                status: 202, headers: ["Content-Type": "application/json"], body: Data(body.bytes), bodyProblem: response.bodyProblem
            )
        default:
            var headers = ["Content-Type": "application/json"]
            if let retryAfter = response.header("Retry-After") { headers["Retry-After"] = retryAfter }
            var body = OTLPJSONWriter(capacity: 64)
            body.raw(#"{"error":"#)
            body.string("the OpenTelemetry collector answered \(response.status): " + (statusMessage(in: response.body) ?? "no message"))
            body.raw("}")
            return UploadResponse(status: response.status, headers: headers, body: Data(body.bytes), bodyProblem: response.bodyProblem)
        }
    }

    /// `partialSuccess` of an `ExportLogsServiceResponse` in the JSON encoding: its
    /// `rejectedLogRecords` (an `int64`, so a string, though a number is accepted as the mapping
    /// allows) and `errorMessage`. An empty or unreadable body, or none of it, is 0 rejected: the
    /// 2xx says the collector took the export.
    /// - Parameter body: The 2xx's body.
    /// - Returns: The count and the message, if any.
    static func partialSuccess(in body: Data) -> (rejected: Int64, message: String?) {
        guard !body.isEmpty, case .success(let root) = JSONParser.parse(Array(body)),
              let partial = root.member("partialSuccess") else { return (0, nil) }
        var rejected: Int64 = 0
        switch partial.member("rejectedLogRecords") {
        case .string(let text)?: rejected = Int64(text) ?? 0
        case .integer(let count)?: rejected = count
        default: break
        }
        var message: String?
        if case .string(let text)? = partial.member("errorMessage"), !text.isEmpty { message = text }
        return (rejected, message)
    }

    /// The `message` of a `google.rpc.Status` error body in the JSON encoding, or the body's
    /// first line when it is plain text; cut to 200 characters.
    /// - Parameter body: The 4xx or 5xx body.
    /// - Returns: The message, or `nil` when there is none.
    static func statusMessage(in body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        let text: String
        if case .success(let root) = JSONParser.parse(Array(body)) {
            guard case .string(let message)? = root.member("message") else { return nil }
            text = message
        } else {
            text = String(decoding: body.prefix(1_024), as: UTF8.self)
        }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? nil : String(line.prefix(200))
    }
}
