public import Foundation

extension SimpleDataLogs {
    /// The server's answer to an ``UploadRequest``, whatever its status.
    public struct UploadResponse: Sendable, Equatable {
        /// The HTTP status code, for example 202 or 503.
        public var status: Int
        /// The header fields as received. Look them up with ``header(_:)``, which ignores case.
        public var headers: [String: String]
        /// The body bytes, after any content decoding the library did.
        public var body: Data
        /// Why the body could not be read whole, when the head (status and headers) arrived but the
        /// body then failed: a `Content-Encoding` that lies about it, a connection cut in the middle.
        /// The status still decides what the answer means; `nil` for a body read whole.
        public var bodyProblem: String?

        /// Creates a response.
        /// - Parameters:
        ///   - status: The HTTP status code.
        ///   - headers: The header fields.
        ///   - body: The body bytes.
        ///   - bodyProblem: Why the body could not be read whole, if it could not.
        public init(status: Int, headers: [String: String] = [:], body: Data = Data(), bodyProblem: String? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyProblem = bodyProblem
        }

        /// The value of a header field, by case-insensitive name.
        /// - Parameter name: The field name, for example `"retry-after"`.
        /// - Returns: Its value, or `nil` when the response does not carry it.
        public func header(_ name: String) -> String? {
            HeaderLookup.value(of: name, in: headers)
        }
    }
}
