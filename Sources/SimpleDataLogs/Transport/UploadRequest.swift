public import Foundation

extension SimpleDataLogs {
    /// One HTTP request for a ``Transport`` to send: everything the uploader decided, in a shape any
    /// HTTP library can take.
    public struct UploadRequest: Sendable, Equatable {
        /// The absolute URL, for example `https://edge.simpledatalogs.com/v1/events`.
        public var url: URL
        /// The method; the ingest takes `POST`.
        public var method: String
        /// The header fields to send, exactly as given. A transport must send them unchanged and must
        /// not add its own `Content-Type` (some libraries default to form data).
        public var headers: [String: String]
        /// The body bytes, already compressed when `Content-Encoding` says so.
        public var body: Data
        /// How long the library may wait for the whole exchange: a backstop only. The uploader
        /// enforces its own deadline on its injected clock and cancels the task when it passes.
        public var timeout: Duration

        /// Creates a request.
        /// - Parameters:
        ///   - url: The absolute URL.
        ///   - method: The method; `POST` by default.
        ///   - headers: The header fields, sent unchanged.
        ///   - body: The body bytes.
        ///   - timeout: The library's backstop timeout; 30 seconds by default.
        public init(url: URL, method: String = "POST", headers: [String: String] = [:], body: Data = Data(), timeout: Duration = .seconds(30)) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.timeout = timeout
        }

        /// The value of a header field, by case-insensitive name.
        /// - Parameter name: The field name, for example `"content-encoding"`.
        /// - Returns: Its value, or `nil` when the request does not carry it.
        public func header(_ name: String) -> String? {
            HeaderLookup.value(of: name, in: headers)
        }
    }
}

extension UploadRequest {
    /// Whether the body went out gzipped, as the ``AnswerPolicy`` needs to know for a 415.
    var isGzipped: Bool { header("Content-Encoding")?.lowercased() == "gzip" }
}

/// Case-insensitive lookup in a header dictionary (HTTP field names are case-insensitive).
enum HeaderLookup {
    /// The value of `name` in `headers`, whatever the spelling of either.
    /// - Parameters:
    ///   - name: The field name.
    ///   - headers: The fields.
    /// - Returns: The value, or `nil` when absent.
    static func value(of name: String, in headers: [String: String]) -> String? {
        if let exact = headers[name] { return exact }
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }
}
