public import Foundation

/// One request that ``LocalCollector`` read, with what it answered.
public struct CollectorRequest: Sendable, Hashable {
    /// The method, for example `POST`.
    public var method: String
    /// The path, without any query string: `/v1/logs` for an OTLP/HTTP logs export.
    public var path: String
    /// The header fields in the order sent.
    public var headers: [RecordedRequest.Header]
    /// The body after any gzip decoding (the JSON `ExportLogsServiceRequest`), or the wire bytes
    /// when it could not be decoded.
    public var body: Data
    /// The log records the body holds (`resourceLogs[].scopeLogs[].logRecords[]`); 0 when it was
    /// not read.
    public var logRecordCount: Int
    /// The status answered.
    public var status: Int

    /// The first value of a header, by case-insensitive name.
    /// - Parameter name: The header name, for example `"content-type"`.
    /// - Returns: Its value, or `nil` when the request did not carry it.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
