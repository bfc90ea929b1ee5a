#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// The configured clients of this process, weakly held, so that process exit can journal what
/// they still hold in memory.
///
/// On Linux a command-line tool that tracks and returns from `main` without calling anything
/// would otherwise lose its last events: the exit hook drains each client's intake into its
/// journal, synchronously, with a bound, and the next run sends them. This is the documented
/// exception to "never block a thread the SDK does not own" (DESIGN.md, "Lifecycle").
enum ClientRegistry {
    private struct Entry: Sendable {
        weak var client: SimpleDataLogsClient?
    }

    private static let clients = Locked<[ObjectIdentifier: Entry]>([:])
    private static let hookInstalled = Locked(false)

    /// The longest the exit hook waits for one client's intake to reach its journal.
    static let exitDrainLimit: Duration = .seconds(1)

    /// Registers a configured client, and installs the exit hook once per process.
    static func register(_ client: SimpleDataLogsClient) {
        clients.withLock { $0[ObjectIdentifier(client)] = Entry(client: client) }
        let install = hookInstalled.withLock { installed in
            defer { installed = true }
            return !installed
        }
        if install { atexit { ClientRegistry.drainAllAtExit() } }
    }

    /// Forgets a client that has shut down.
    static func unregister(_ client: SimpleDataLogsClient) {
        clients.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(client)) }
    }

    /// Runs at process exit, on the exiting thread: every live client's queued events go to
    /// its journal, each wait bounded.
    static func drainAllAtExit() {
        let live = clients.withLock { $0.values.compactMap(\.client) }
        for client in live {
            _ = client.drainSynchronously(timeout: exitDrainLimit)
        }
    }
}
