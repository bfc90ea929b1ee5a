public import Foundation

/// A real HTTP/1.1 ingest server on 127.0.0.1 (or the address ``Configuration/host`` names), speaking the server side of INGEST-API.md, for
/// testing the SDK (or an app's analytics) over real sockets.
///
/// ```swift
/// let ingest = try LocalIngest()
/// defer { ingest.stop() }
/// // Point the client under test at `ingest.endpoint` (for the SDK:
/// // `SimpleDataLogsClient.Configuration(ingestKey: "sdl_pub_test", endpoint: ingest.endpoint)`),
/// // then make it send:
/// client.track("export_finished")
/// #expect(await ingest.waitForEvents(count: 1))
/// #expect(ingest.receivedEvents.first?.name == "export_finished")
/// ```
///
/// It checks the key (any `sdl_pub_`/`sdl_sec_` key, or only ``Configuration/requiredKey``),
/// the content type and encoding (gzip bodies are inflated), the size limit after decoding, the
/// body's shape (400) and each event's rules (listed in the 202's `rejected`), and deduplicates by
/// `event_id` and by `SDL-Batch-ID`. Faults for tests: ``script(_:)`` answers, added latency
/// (``Configuration/addedLatency``) and a key that goes live late (``Configuration/keyLiveAfter``,
/// ``makeKeyLive()``).
///
/// Its socket work runs on threads of its own, never on Swift's cooperative pool. Deduplication
/// memory has no time window (the edge's 30 days and 24 hours outlast any test). Call ``stop()``
/// when done; releasing the last reference stops it too.
public final class LocalIngest: Sendable {
    /// The port the server listens on (the system's choice when the configuration said 0).
    public let port: Int
    /// The configuration the server started with.
    public let configuration: Configuration
    private let storage: IngestStorage
    private let server: SocketServer

    /// Binds 127.0.0.1 (or ``Configuration/host``) and starts serving at once.
    /// - Parameter configuration: Address, port, key, size limit and standing faults.
    /// - Throws: ``LocalIngestError`` when the host is not an IPv4 address or the port cannot be
    ///   bound (for example, it is in use, or the address is not one of this machine's).
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        guard let address = Socket.ipv4Address(configuration.host) else {
            throw LocalIngestError(message: "LocalIngest cannot listen on \"\(configuration.host)\": the host must be an IPv4 address such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).")
        }
        storage = IngestStorage()
        let handler = IngestHandler(configuration: configuration, storage: storage)
        do {
            server = try SocketServer(port: configuration.port, address: address, handler: handler)
        } catch {
            throw LocalIngestError(message: "LocalIngest could not listen on \(configuration.host):\(configuration.port): \(error)")
        }
        port = server.port
    }

    deinit { server.stop() }

    /// The base URL to configure a client on this machine with: `http://127.0.0.1:PORT`, or the
    /// address of ``Configuration/host`` when it names one interface (requests go to `/v1/events`).
    public var endpoint: URL {
        // 0.0.0.0 is every interface, loopback included, but not an address to connect to.
        let host = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        // Built from parts known to be valid, so this never fails; the fallback keeps it total.
        return URL(string: "http://\(host):\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops serving: closes the listener and every connection, and returns once the server's
    /// threads have ended. Pending waits return `false`. Idempotent. The recorded requests and
    /// events stay readable.
    public func stop() {
        server.stop()
        storage.cancelAllWaits()
    }

    // MARK: Faults

    /// Replaces the script: the next requests to `/v1/events` get these answers, one each, in
    /// order, before normal handling resumes.
    /// - Parameter answers: The answers.
    public func script(_ answers: [ScriptedAnswer]) { storage.setScript(answers) }

    /// Answers every request held by ``ScriptedAnswer/heldUntilReleased`` (or `isHeld`), and
    /// every later held one at once.
    public func releaseHeldAnswers() { server.releaseHeldAnswers() }

    /// Adds answers to the end of the script.
    /// - Parameter answers: The answers.
    public func appendScript(_ answers: [ScriptedAnswer]) { storage.appendScript(answers) }

    /// The scripted answers not yet used.
    public var remainingScript: [ScriptedAnswer] { storage.remainingScript }

    /// Makes the key live now, ending ``Configuration/keyLiveAfter`` early: requests that got 401
    /// "not live yet" are accepted from now on.
    public func makeKeyLive() { storage.makeKeyLive() }

    // MARK: What arrived

    /// Events counted, each `event_id` once, in arrival order.
    public var receivedEvents: [ReceivedEvent] { storage.receivedEvents }

    /// Every valid event of every request that reached a normal 202, repeats and replays included.
    public var rawEvents: [ReceivedEvent] { storage.rawEvents }

    /// Every request read in full, on any path, in the order answered.
    public var requests: [RecordedRequest] { storage.requests }

    /// The counters.
    public var summary: Summary { storage.summary }

    // MARK: Waiting

    /// Waits until at least `count` events have been counted (deduplicated).
    /// - Parameters:
    ///   - count: How many events.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout, cancellation or ``stop()``.
    public func waitForEvents(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.accepted >= count }
    }

    /// Waits until at least `count` events have arrived in requests that reached a normal 202,
    /// repeats included (see ``rawEvents``).
    /// - Parameters:
    ///   - count: How many events.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout, cancellation or ``stop()``.
    public func waitForRawEvents(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.rawEvents >= count }
    }

    /// Waits until at least `count` requests have been read and answered (or dropped).
    /// - Parameters:
    ///   - count: How many requests.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout, cancellation or ``stop()``.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.requests >= count }
    }

    /// Waits until at least `count` batches have been counted (see ``Summary/batches``).
    /// - Parameters:
    ///   - count: How many batches.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: `true` once the count is reached; `false` on timeout, cancellation or ``stop()``.
    public func waitForBatches(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await storage.wait(timeout: timeout) { $0.batches >= count }
    }

    /// Waits until the counters satisfy `condition`, for anything the other waits do not cover
    /// (for example `{ $0.closedBeforeReading == 1 }`).
    /// - Parameters:
    ///   - timeout: How long to wait at most (real time).
    ///   - condition: Checked now and after every change, under the server's lock: keep it quick.
    /// - Returns: `true` once the condition holds; `false` on timeout, cancellation or ``stop()``.
    public func waitForSummary(timeout: Duration = .seconds(30), until condition: @escaping @Sendable (Summary) -> Bool) async -> Bool {
        await storage.wait(timeout: timeout, until: condition)
    }

    /// Blocks the calling thread until the counters satisfy `condition`: the waits above, for
    /// code that cannot `await` (a thread of its own, a synchronous test, or a test that holds
    /// every thread of Swift's cooperative pool on purpose). Never call it from a task: it blocks
    /// a pool thread.
    /// - Parameters:
    ///   - timeout: How long to block at most (real time).
    ///   - condition: Checked now and after every change, under the server's lock: keep it quick.
    /// - Returns: `true` once the condition holds; `false` on timeout or ``stop()``.
    public func blockUntilSummary(timeout: Duration = .seconds(30), until condition: @escaping @Sendable (Summary) -> Bool) -> Bool {
        storage.blockingWait(timeout: timeout, until: condition)
    }
}

/// Why a ``LocalIngest`` could not start.
public struct LocalIngestError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the system's reason.
    public var message: String
    /// The message.
    public var description: String { message }
}
