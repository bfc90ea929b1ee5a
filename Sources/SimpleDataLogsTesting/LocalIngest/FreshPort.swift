import SimpleDataLogs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listening sockets on ports no ``LocalIngest`` in this process has used before.
///
/// Why: tests stop an ingest to see refused connections while the client under test keeps its
/// port in its configuration. If a second ingest, started by a test running beside it, were given
/// that port by the system (which hands out recently freed ports readily), the first client would
/// deliver to the second test's server and both tests would count events that are not theirs.
/// So a port the system picks (`port: 0`) is taken only if this process has never listened on
/// it; an explicit port (restarting an ingest where it was) is always honoured.
enum FreshPort {
    /// Every port a `LocalIngest` has listened on in this process.
    private static let used = Locked<Set<Int>>([])

    /// Opens a listener on `address`:`port` (127.0.0.1 unless asked); for port 0, on a port this
    /// process has not used.
    /// - Throws: ``Socket/Failure`` when binding fails, or 256 system choices in a row were used.
    static func listen(port: Int, address: UInt32 = Socket.loopback) throws -> (descriptor: Int32, port: Int) {
        guard port == 0 else {
            let listener = try listenAgain(port: port, address: address)
            used.withLock { _ = $0.insert(listener.port) }
            return listener
        }
        // Refused candidates stay bound (and not listening) until a fresh one is found, so the
        // system does not offer the same one again; then they are released.
        var refused: [Int32] = []
        defer { for descriptor in refused { close(descriptor) } }
        for _ in 0..<256 {
            let (descriptor, candidate) = try Socket.bindAddress(port: 0, address: address)
            let isFresh = used.withLock { $0.insert(candidate).inserted }
            guard isFresh else {
                refused.append(descriptor)
                continue
            }
            try Socket.startListening(descriptor)
            return (descriptor, candidate)
        }
        throw Socket.Failure(call: "bind (no port this process has not used)", code: EADDRINUSE)
    }

    /// Listens on an explicit port, where a stopped ingest was. A port just given up can be
    /// refused for a moment (seen about once in 30 CI runs, under the sanitizers: "Address
    /// already in use" on a restart), so `EADDRINUSE` is tried again for up to a second, in
    /// 20 ms steps; a port another process really holds still fails, then.
    private static func listenAgain(port: Int, address: UInt32) throws -> (descriptor: Int32, port: Int) {
        var attempt = 0
        while true {
            do {
                return try Socket.openListener(port: port, address: address)
            } catch let failure as Socket.Failure where failure.code == EADDRINUSE && attempt < 50 {
                attempt += 1
                usleep(20_000)
            }
        }
    }
}
