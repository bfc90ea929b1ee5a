import Foundation
import SimpleDataLogsTesting
import Testing

/// The tests' restartable ports (Support/LoopbackPorts.swift): an ingest stopped and started again
/// on its port failed once with EADDRINUSE, because a port-0 ingest's port is ephemeral and an
/// outgoing connection took it while the ingest was down.
@Suite("Test support: ports an ingest can stop on and come back to", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct LoopbackPortTests {
    /// The first port of the kernel's ephemeral range (the ports it gives to port-0 binds and to
    /// outgoing connections).
    static var ephemeralLow: Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    @Test("closedLoopbackPort() and Delivery's ingest are below the ephemeral range, free, and never handed out twice")
    func belowTheEphemeralRange() async throws {
        let ports = try (0..<20).map { _ in try closedLoopbackPort() }
        #expect(ports.allSatisfy { $0 >= 1_024 && $0 < Self.ephemeralLow }, "\(ports) against \(Self.ephemeralLow)")
        #expect(Set(ports).count == ports.count)
        try await withDelivery { delivery in
            #expect(delivery.ingest.port < Self.ephemeralLow, "\(delivery.ingest.port)")
        }
        // Free: an ingest listens on each, then gives it back.
        for port in ports.prefix(3) {
            let ingest = try LocalIngest(configuration: LocalIngest.Configuration(port: port))
            ingest.stop()
        }
    }
}
