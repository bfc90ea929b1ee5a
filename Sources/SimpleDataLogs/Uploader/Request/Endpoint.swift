package import Foundation

/// Where the uploader sends: the events URL made from the configured endpoint, or the reason it
/// will not send there.
///
/// Rules (INGEST-API.md, "Request"):
/// - the scheme is `https`, or `http` for a loopback host (`127.0.0.0/8`, `localhost`, `::1`);
///   plain `http` to any other host (an in-cluster relay) needs `allowsInsecureHTTP`;
/// - there is a host;
/// - trailing `/`s are dropped and a path prefix is kept, then `/v1/events` appended
///   (`https://proxy.example.com/sdl` → `https://proxy.example.com/sdl/v1/events`). A query is
///   kept; a fragment is dropped (it never goes on the wire anyway).
///
/// A refused endpoint is not an error to throw at the app: the uploader logs the refusal's one
/// line and sends nothing, and the events stay on disk for a corrected configuration.
package struct Endpoint: Sendable, Equatable {
    /// Why an endpoint was refused.
    package struct Refusal: Error, Sendable, Equatable {
        /// One log line: what is wrong, what the SDK does, what to change.
        let message: String
    }

    /// The edge every app sends to unless told otherwise.
    static let defaultBaseURL: URL = URL(string: "https://edge.simpledatalogs.com") ?? URL(fileURLWithPath: "/")

    /// The path the ingest takes batches on, after any prefix.
    static let eventsPath = "/v1/events"

    /// The URL batches are POSTed to.
    package let eventsURL: URL

    /// Resolves a configured endpoint.
    /// - Parameters:
    ///   - configured: The endpoint from the configuration, for example `https://edge.simpledatalogs.com`.
    ///   - allowsInsecureHTTP: Whether plain `http` is allowed to a host that is not loopback.
    /// - Returns: The endpoint, or the refusal with its log line.
    package static func resolve(_ configured: URL, allowsInsecureHTTP: Bool = false) -> Result<Endpoint, Refusal> {
        let shown = configured.absoluteString
        guard var components = URLComponents(url: configured, resolvingAgainstBaseURL: true) else {
            return .failure(Refusal(message: "endpoint \(shown) is not a valid URL; nothing is sent and events stay on disk. Set the endpoint to an https:// URL such as \(defaultBaseURL.absoluteString)"))
        }
        let scheme = components.scheme?.lowercased() ?? ""
        guard scheme == "https" || scheme == "http" else {
            return .failure(Refusal(message: "endpoint \(shown) is not http or https; nothing is sent and events stay on disk. Set the endpoint to an https:// URL such as \(defaultBaseURL.absoluteString)"))
        }
        guard let host = components.host, !host.isEmpty else {
            return .failure(Refusal(message: "endpoint \(shown) has no host; nothing is sent and events stay on disk. Set the endpoint to an https:// URL such as \(defaultBaseURL.absoluteString)"))
        }
        if scheme == "http", !isLoopback(host: host), !allowsInsecureHTTP {
            return .failure(Refusal(message: "endpoint \(shown) is plain HTTP to \(host), which is not a loopback host; nothing is sent and events stay on disk. Use https://, or opt in to plain HTTP for an in-cluster relay"))
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path + eventsPath
        components.fragment = nil
        guard let url = components.url else {
            return .failure(Refusal(message: "endpoint \(shown) does not make a valid events URL; nothing is sent and events stay on disk. Set the endpoint to an https:// URL such as \(defaultBaseURL.absoluteString)"))
        }
        return .success(Endpoint(eventsURL: url))
    }

    /// Whether a host names this machine: `localhost`, an address in `127.0.0.0/8`, or `::1`.
    /// - Parameter host: The URL's host, with or without IPv6 brackets.
    /// - Returns: `true` for a loopback host.
    static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        // Strict dotted decimal: "127.1" or "0x7f.0.0.1" are spellings curl might take, but no
        // one configures an endpoint that way, and refusing is the safe side.
        let values = octets.map { octet -> Int? in
            guard (1...3).contains(octet.count), octet.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(octet).flatMap { $0 <= 255 ? $0 : nil }
        }
        guard values.allSatisfy({ $0 != nil }) else { return false }
        return values.first == 127
    }
}
