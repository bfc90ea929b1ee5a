import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// The one event every figure uses (issue 7): "Bench Event" with `seq`, `run`, `plan`, `price`, `ok`.
enum BenchEvent {
    static let name = "Bench Event"
    static let run = "bench-" + String(UUID().uuidString.prefix(8)).lowercased()

    /// The properties of event number `seq`.
    @inline(__always)
    static func properties(_ seq: Int) -> [String: PropertyValue] {
        ["seq": .int(Int64(seq)), "run": .string(run), "plan": .string("pro"), "price": .double(19.99), "ok": .bool(true)]
    }

    static let ingestKey = "sdl_pub_benchmark0000000000"

    /// A client with the SDK's real policy and package-level tuning, not yet configured.
    /// - Parameter uploads: Whether the uploader runs (`ClientTuning.startsUploader`).
    static func newClient(uploads: Bool, intakeLog: Bool? = nil) -> SimpleDataLogsClient {
        var tuning = ClientTuning()
        tuning.startsUploader = uploads
        tuning.intakeLog = intakeLog
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_STORAGE_DIR"] = nil
        environment["SDL_LOG_LEVEL"] = nil
        return SimpleDataLogsClient(
            clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: QuietLogSink(),
            tuning: tuning, environment: environment
        )
    }

    /// The configuration every benchmark uses; only the knobs issue 7 names are varied.
    /// - Parameters:
    ///   - folder: The outbox folder.
    ///   - endpoint: The ingest; a closed loopback port when uploads are off.
    ///   - batchSize: Events per batch (50 is the product's default).
    ///   - inFlight: Requests in flight (1 by default).
    ///   - gzip: Whether bodies are compressed (on by default).
    static func configuration(
        folder: URL, endpoint: URL? = nil, batchSize: Int = 50, inFlight: Int = 1, gzip: Bool = true
    ) -> SimpleDataLogsClient.Configuration {
        SimpleDataLogsClient.Configuration(
            ingestKey: ingestKey,
            endpoint: endpoint ?? URL(string: "http://127.0.0.1:9")!,
            logLevel: .warning,
            storageDirectory: folder,
            batchSize: batchSize,
            maxConcurrentRequests: inFlight,
            compressesRequests: gzip,
            requestTimeout: .seconds(10)
        )
    }

    /// A configured client: uploads off unless `endpoint` is given.
    static func makeClient(
        folder: URL, endpoint: URL? = nil, batchSize: Int = 50, inFlight: Int = 1, gzip: Bool = true,
        middleware: [EventMiddleware] = [], intakeLog: Bool? = nil, receipts: CompletenessReceipts = .daily
    ) -> SimpleDataLogsClient {
        let client = newClient(uploads: endpoint != nil, intakeLog: intakeLog)
        var configuration = configuration(folder: folder, endpoint: endpoint, batchSize: batchSize, inFlight: inFlight, gzip: gzip)
        configuration.middleware = middleware
        configuration.completenessReceipts = receipts
        client.configure(configuration)
        return client
    }

    /// Tracks `count` events numbered from `first`, never letting more than `window` wait for the
    /// journal, so none is skipped by the backlog bound. Blocks the calling thread.
    static func trackPaced(_ client: SimpleDataLogsClient, first: Int, count: Int, window: Int = 4_000) {
        var seq = first
        let end = first + count
        while seq < end {
            let written = client.journalWatermark.eventsWritten
            let room = window - (seq - written)
            if room <= 0 {
                Measure.sleep(microseconds: 50)
                continue
            }
            for _ in 0..<min(room, end - seq) {
                client.track(name, properties: properties(seq))
                seq += 1
            }
        }
    }

    /// An event id that carries `index` in its last 8 bytes and `tag` in its first 8.
    static func indexedID(tag: UInt64, index: Int) -> UUID {
        let t = tag
        let i = UInt64(index)
        return UUID(uuid: (
            UInt8(truncatingIfNeeded: t >> 56), UInt8(truncatingIfNeeded: t >> 48), UInt8(truncatingIfNeeded: t >> 40), UInt8(truncatingIfNeeded: t >> 32),
            UInt8(truncatingIfNeeded: t >> 24), UInt8(truncatingIfNeeded: t >> 16), 0x70, UInt8(truncatingIfNeeded: t),
            0x80, UInt8(truncatingIfNeeded: i >> 48), UInt8(truncatingIfNeeded: i >> 40), UInt8(truncatingIfNeeded: i >> 32),
            UInt8(truncatingIfNeeded: i >> 24), UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8), UInt8(truncatingIfNeeded: i)
        ))
    }

    /// The index ``indexedID(tag:index:)`` put into `id`.
    static func index(of id: UUID) -> Int {
        let u = id.uuid
        return Int(u.9) << 48 | Int(u.10) << 40 | Int(u.11) << 32 | Int(u.12) << 24 | Int(u.13) << 16 | Int(u.14) << 8 | Int(u.15)
    }
}

/// Keeps the SDK's log lines out of the results, but shows errors on standard error.
struct QuietLogSink: LogSink {
    func log(_ level: LogLevel, _ message: String) {
        guard level >= .error else { return }
        FileHandle.standardError.write(Data("[sdk \(level)] \(message)\n".utf8))
    }
}
