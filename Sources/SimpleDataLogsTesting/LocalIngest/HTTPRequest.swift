/// The head of one HTTP/1.1 request: request line and header fields.
struct HTTPRequestHead: Sendable, Equatable {
    var method: String
    /// The request target as sent (origin form, `/v1/events?x=1`).
    var target: String
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    var minorVersion: Int
    /// Header fields in arrival order, names as sent.
    var headers: [(name: String, value: String)]
    /// The body length from `Content-Length` (0 when absent).
    var contentLength: Int

    /// The path without any query string; an absolute-form target loses its scheme and authority.
    var path: String {
        var path = Substring(target)
        for scheme in ["http://", "https://"] where path.lowercased().hasPrefix(scheme) {
            let afterScheme = path.dropFirst(scheme.count)
            path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
        return String(path)
    }

    /// The first value of a header, by case-insensitive name.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether the connection stays open after the answer (HTTP/1.1 default, or HTTP/1.0 opt-in).
    var keepAlive: Bool {
        let tokens = (header("Connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    var expectsContinue: Bool { header("Expect")?.lowercased().trimmingSpaces == "100-continue" }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.minorVersion == rhs.minorVersion
            && lhs.contentLength == rhs.contentLength
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// One complete request: head and body bytes, exactly `contentLength` of them.
struct HTTPRequest: Sendable, Equatable {
    var head: HTTPRequestHead
    var body: [UInt8]
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
