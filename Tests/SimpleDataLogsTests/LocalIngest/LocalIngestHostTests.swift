import Foundation
import SDLCommands
import SimpleDataLogsTesting
import Testing

/// `LocalIngest.Configuration.host` (and so `sdl ingest --host`): the ingest listens where it is
/// asked, so a phone on the same network can reach it, and nowhere but loopback by default.
@Suite("LocalIngest: the address it listens on", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct LocalIngestHostTests {
    private typealias Fixture = IngestFixture

    /// A non-loopback IPv4 address of this machine, or `nil` on a machine with none.
    static let networkAddress = NetworkAddresses.reachableFromTheNetwork().first?.address

    /// POSTs one event to `host`:`port` over a raw connection; the status, or `nil` when the
    /// connection is refused.
    static func post(to host: String, port: Int) async throws -> Int? {
        try await Fixture.onOwnThread {
            guard let connection = try? RawConnection(port: port, host: host) else { return nil }
            connection.send(RawConnection.post(Fixture.body([Fixture.event()])))
            return try connection.readResponse().status
        }
    }

    @Test("0.0.0.0: reachable through 127.0.0.1 and through the machine's network address, and endpoint says 127.0.0.1")
    func everyInterface() async throws {
        let ingest = try Fixture.ingest { $0.host = "0.0.0.0" }
        defer { ingest.stop() }
        #expect(ingest.endpoint.absoluteString == "http://127.0.0.1:\(ingest.port)")
        #expect(try await Self.post(to: "127.0.0.1", port: ingest.port) == 202)
        if let address = Self.networkAddress {
            #expect(try await Self.post(to: address, port: ingest.port) == 202, "through \(address)")
            #expect(ingest.receivedEvents.count == 2)
        }
    }

    /// A machine with no address besides loopback (a container without a network) cannot show
    /// what these tests are about; they are skipped there, with this reason.
    static let hasNetworkAddress = Testing.ConditionTrait.enabled(if: networkAddress != nil, "this machine has no non-loopback IPv4 address")

    @Test("the default listens on loopback only: the machine's network address is refused", hasNetworkAddress)
    func loopbackByDefault() async throws {
        let ingest = try Fixture.ingest()
        defer { ingest.stop() }
        #expect(ingest.configuration.host == "127.0.0.1")
        #expect(try await Self.post(to: "127.0.0.1", port: ingest.port) == 202)
        let address = try #require(Self.networkAddress)
        #expect(try await Self.post(to: address, port: ingest.port) == nil, "reached through \(address)")
        #expect(ingest.receivedEvents.count == 1)
    }

    @Test("one interface's address: bound there, and endpoint names it", hasNetworkAddress)
    func oneAddress() async throws {
        let address = try #require(Self.networkAddress)
        let ingest = try Fixture.ingest { $0.host = address }
        defer { ingest.stop() }
        #expect(ingest.endpoint.absoluteString == "http://\(address):\(ingest.port)")
        #expect(try await Self.post(to: address, port: ingest.port) == 202)
        #expect(try await Self.post(to: "127.0.0.1", port: ingest.port) == nil, "listening on \(address) only")
    }

    @Test("a host that is not an IPv4 address, or not this machine's, throws with the reason", arguments: ["localhost", "::1", "300.1.1.1", "", "192.0.2.254x", "203.0.113.7"])
    func refusedHost(host: String) throws {
        let error = #expect(throws: LocalIngestError.self) { try LocalIngest(configuration: LocalIngest.Configuration(host: host)) }
        #expect(host.isEmpty || error?.message.contains(host) == true, "\(error?.message ?? "")")
    }
}
