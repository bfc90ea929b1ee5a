/// One HTTP/1.1 answer, serialized into a single buffer so that it goes out in one `send`.
///
/// Why one buffer: a head and a body in two sends meet Nagle's algorithm and the client's delayed
/// ACK, which adds about 40 ms to every answer on a reused connection (measured on these hosts).
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    var headers: [(name: String, value: String)] = []
    var body: String = ""
    var keepAlive = true

    /// An answer with a JSON body.
    static func json(_ status: Int, _ body: String, headers: [(name: String, value: String)] = [], keepAlive: Bool = true) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body, keepAlive: keepAlive)
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The whole answer on the wire: status line, headers, `Content-Length`, `Connection`, body.
    var bytes: [UInt8] {
        let bodyBytes = Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(bodyBytes.count)\r\n"
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(head.utf8) + bodyBytes
    }

    /// The reason phrase; clients ignore it, people reading a capture do not.
    static func reason(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 202: return "Accepted"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes == rhs.bytes }
}
