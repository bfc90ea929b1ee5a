import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

/// The raw-socket client the ingest's tests use is itself checked: it shares one process (one
/// descriptor table) with every other test, so a descriptor it closes twice can close another
/// test's socket. Once it reset an ingest's keep-alive connection mid-request, failing "a replayed
/// SDL-Batch-ID is answered 202 without counting again" with "Connection reset by peer".
@Suite("The local ingest tests' raw-socket client", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct LocalIngestTestClientTests {
    /// How many refused connections the check makes: each is a chance for a second close to land
    /// on a descriptor the watcher has just been given.
    static let refusals = 2_000

    @Test("a refused RawConnection closes its socket once, never a descriptor another thread opened since")
    func refusedConnectionClosesOnlyItsOwnSocket() async throws {
        // A port nothing listens on: a stopped ingest's, which no later port-0 ingest is given.
        let stopped = try IngestFixture.ingest()
        stopped.stop()
        let port = stopped.port
        let (refused, lost) = try await IngestFixture.onOwnThread { () -> (Int, [Int32]) in
            let refusing = Locked(true)
            let refused = Locked(0)
            let finished = DispatchSemaphore(value: 0)
            let refuser = Thread {
                for _ in 0..<Self.refusals {
                    do {
                        _ = try RawConnection(port: port)
                    } catch {
                        if (error as? RawConnection.Failure) == .connect { refused.withLock { $0 += 1 } }
                    }
                }
                refusing.withLock { $0 = false }
                finished.signal()
            }
            refuser.start()
            // Meanwhile this thread keeps taking the lowest free descriptor number (the one a
            // refused socket has just given back) and checks, a few rounds later, that each is
            // still the socket it opened. Few are held at once: the suite runs near the descriptor
            // count past which Foundation's Process.run misreads /proc/self/fd.
            var held: [WatchedSocket] = []
            var lost: [Int32] = []
            while refusing.withLock({ $0 }) {
                if let socket = WatchedSocket() { held.append(socket) }
                if held.count > 8, let lostNumber = held.removeFirst().checkAndClose() { lost.append(lostNumber) }
            }
            finished.wait()
            lost += held.compactMap { $0.checkAndClose() }
            return (refused.withLock { $0 }, lost)
        }
        #expect(refused == Self.refusals, "every connection was refused, so the failing path ran each time")
        #expect(lost.isEmpty, "descriptors closed under their owner: \(lost.count), e.g. \(lost.prefix(5))")
    }
}

/// An unconnected local socket and its identity, to notice when its number stops being ours.
private struct WatchedSocket {
    struct Identity: Equatable {
        var device: UInt
        var inode: UInt
    }

    let descriptor: Int32
    /// Read at once; `nil` if the number was already taken from under us.
    let identity: Identity?

    init?() {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        identity = Self.identity(descriptor)
    }

    /// Every socket has an inode of its own, so a number that was closed and handed to another
    /// socket (or file) no longer matches.
    static func identity(_ descriptor: Int32) -> Identity? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return Identity(device: UInt(status.st_dev), inode: UInt(status.st_ino))
    }

    /// Closes the socket if the number is still it and returns nil; otherwise returns the number
    /// and leaves it alone: it now belongs to whoever was given it next, or to no one.
    func checkAndClose() -> Int32? {
        guard let identity, Self.identity(descriptor) == identity else { return descriptor }
        close(descriptor)
        return nil
    }
}
