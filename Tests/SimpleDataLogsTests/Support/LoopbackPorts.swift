import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// A loopback port, free now, that a test may stop listening on and listen on again later: the
/// "ingest down, then back where it was" tests, and the endpoints a child process tracked for.
///
/// Chosen below the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`, 32768 to
/// 60999 by default). A port-0 ingest gets an ephemeral port, and while it is stopped any
/// outgoing connection on the machine (this run's URLSessions, another test run beside it) may be
/// given the same port as its local end, and the restart fails with EADDRINUSE (seen once:
/// CrashEndToEndTests, "Address already in use"). Below the range only a process that asks for the
/// number gets it. Each port is handed out once per process; a taken one is skipped (bounded
/// tries), and where the range leaves no room below it this falls back to an ephemeral port.
/// - Returns: The port; nothing listens on it.
func reusableLoopbackPort() throws -> Int {
    let (low, high) = Ports.range
    for _ in 0..<200 {
        let candidate = Int.random(in: low..<high)
        guard Ports.handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
        guard let ingest = try? LocalIngest(configuration: LocalIngest.Configuration(port: candidate)) else { continue }
        ingest.stop()
        return candidate
    }
    let ingest = try LocalIngest()
    defer { ingest.stop() }
    return ingest.port
}

/// A local ingest listening on a port like ``reusableLoopbackPort()``'s, so a test can stop it and
/// start one again where it was. Binds the chosen port directly (no probe that closes first) and
/// takes another on `EADDRINUSE`, a bounded number of times.
/// - Parameter configuration: The ingest's configuration; its port is replaced.
/// - Returns: The listening ingest.
func localIngestOnReusablePort(_ configuration: LocalIngest.Configuration) throws -> LocalIngest {
    var configuration = configuration
    var lastError: (any Error)?
    for _ in 0..<20 {
        configuration.port = try reusableLoopbackPort()
        do { return try LocalIngest(configuration: configuration) } catch { lastError = error }
    }
    throw lastError!
}

private enum Ports {
    /// The ports handed out in this process.
    static let handedOut = Locked<Set<Int>>([])

    /// Where to choose: up to 10,000 ports just below the ephemeral range, never below 1024.
    static let range: (Int, Int) = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let ephemeralLow = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        let high = max(1_025, ephemeralLow)
        return (max(1_024, high - 10_000), high)
    }()
}
