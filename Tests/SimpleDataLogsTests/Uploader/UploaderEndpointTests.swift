import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: the events URL from the configured endpoint", .stuckTestLimit)
struct UploaderEndpointTests {
    func resolve(_ text: String, insecure: Bool = false) throws -> Result<Endpoint, Endpoint.Refusal> {
        Endpoint.resolve(try #require(URL(string: text)), allowsInsecureHTTP: insecure)
    }

    func eventsURL(_ text: String, insecure: Bool = false) throws -> String? {
        try? resolve(text, insecure: insecure).get().eventsURL.absoluteString
    }

    @Test("the default endpoint is the edge over HTTPS")
    func defaultEndpoint() throws {
        #expect(Endpoint.defaultBaseURL.absoluteString == "https://edge.simpledatalogs.com")
        #expect(try Endpoint.resolve(Endpoint.defaultBaseURL).get().eventsURL.absoluteString == "https://edge.simpledatalogs.com/v1/events")
    }

    @Test("trailing slashes are dropped and a path prefix is kept", arguments: [
        ("https://edge.simpledatalogs.com", "https://edge.simpledatalogs.com/v1/events"),
        ("https://edge.simpledatalogs.com/", "https://edge.simpledatalogs.com/v1/events"),
        ("https://proxy.example.com/sdl", "https://proxy.example.com/sdl/v1/events"),
        ("https://proxy.example.com/sdl/", "https://proxy.example.com/sdl/v1/events"),
        ("https://proxy.example.com/a/b//", "https://proxy.example.com/a/b/v1/events"),
        ("https://proxy.example.com:8443/sdl", "https://proxy.example.com:8443/sdl/v1/events"),
        ("HTTPS://Proxy.Example.com/sdl", "HTTPS://Proxy.Example.com/sdl/v1/events"),
        ("https://proxy.example.com/sdl?tenant=7#frag", "https://proxy.example.com/sdl/v1/events?tenant=7"),
        ("https://proxy.example.com/my%20proxy", "https://proxy.example.com/my%20proxy/v1/events"),
    ])
    func paths(configured: String, expected: String) throws {
        #expect(try eventsURL(configured) == expected)
    }

    @Test("plain HTTP is allowed to loopback hosts", arguments: [
        "http://127.0.0.1:4001", "http://127.1.2.3", "http://localhost:4001/", "http://LOCALHOST", "http://[::1]:4001", "http://localhost.:4001",
    ])
    func loopback(configured: String) throws {
        #expect(try eventsURL(configured)?.hasSuffix("/v1/events") == true)
    }

    @Test("plain HTTP to any other host is refused with one log line, unless opted in", arguments: [
        "http://10.0.0.5:4001", "http://relay.cluster.local", "http://128.0.0.1", "http://127.0.0.256", "http://127.0.0.1.example.com",
        "http://localhost.example.com", "http://[::2]", "http://example.com/127.0.0.1",
    ])
    func insecure(configured: String) throws {
        guard case .failure(let refusal) = try resolve(configured) else {
            Issue.record("\(configured) was not refused")
            return
        }
        #expect(refusal.message.contains("plain HTTP") && refusal.message.contains("events stay on disk"))
        #expect(!refusal.message.contains("\n"))
        #expect(try eventsURL(configured, insecure: true)?.hasPrefix("http://") == true)
    }

    @Test("anything but http and https, or no host, is refused even with the opt-in", arguments: [
        "ftp://edge.simpledatalogs.com", "file:///tmp/events", "ws://localhost:4001", "mailto:ops@example.com", "https:///v1", "edge.simpledatalogs.com",
    ])
    func refused(configured: String) throws {
        guard case .failure(let refusal) = try resolve(configured, insecure: true) else {
            Issue.record("\(configured) was not refused")
            return
        }
        #expect(refusal.message.hasPrefix("endpoint ") && refusal.message.contains("nothing is sent") && !refusal.message.contains("\n"))
    }

    @Test("loopback recognition is strict dotted decimal", arguments: [
        ("127.0.0.1", true), ("127.255.255.255", true), ("localhost", true), ("::1", true), ("[::1]", true),
        ("126.0.0.1", false), ("127.0.0", false), ("127.0.0.1.2", false), ("127.00000.0.1", false), ("0x7f.0.0.1", false), ("", false),
    ])
    func loopbackHosts(host: String, isLoopback: Bool) {
        #expect(Endpoint.isLoopback(host: host) == isLoopback)
    }
}
