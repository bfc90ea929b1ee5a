import Foundation
@testable import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

/// A fresh folder under the system's temporary folder, for one test's outbox.
struct TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = "sdl-test") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
    }

    var url: URL { URL(fileURLWithPath: path) }

    /// A temporary directory that exists (``init(_:)`` only names one).
    static func made(_ label: String = "sdl-test") throws -> TemporaryDirectory {
        let directory = TemporaryDirectory(label)
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        return directory
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// One client configured against a temporary folder, with the test clocks and a recording log.
struct TestClient: Sendable {
    let client: SimpleDataLogsClient
    let directory: TemporaryDirectory
    let log: RecordingLogSink
    let wallClock: SettableWallClock
    let clock: ManualClock

    /// Where the client sends, when a test gives a local ingest; otherwise uploads are off and
    /// the outbox can be looked at undisturbed.
    let endpoint: URL?
    let adjust: @Sendable (inout SimpleDataLogsClient.Configuration) -> Void

    init(
        configure: Bool = true, key: String = "sdl_pub_test0000000000", gate: WriterGate? = nil,
        tuning: ClientTuning = ClientTuning(), faults: FaultInjection = FaultInjection(),
        directory: TemporaryDirectory = TemporaryDirectory(),
        environment: [String: String] = [:], endpoint: URL? = nil,
        adjust: @escaping @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in }
    ) {
        self.endpoint = endpoint
        self.adjust = adjust
        self.directory = directory
        log = RecordingLogSink()
        wallClock = SettableWallClock()
        clock = ManualClock()
        var tuning = tuning
        var faults = faults
        if let gate { faults.writerGate = gate }
        if endpoint == nil { tuning.startsUploader = false }
        // Lock attempts wait out a child being spawned by another test (see `SpawnGate`).
        if faults.fileSystem is PosixFileSystem { faults.fileSystem = FaultInjectingFileSystem() }
        client = SimpleDataLogsClient(
            clock: clock, wallClock: wallClock, logSink: log, tuning: tuning, faults: faults, environment: environment
        )
        if configure { self.configure(key: key) }
    }

    func configure(key: String = "sdl_pub_test0000000000") {
        // With uploads off, an endpoint nothing listens on: no test ever reaches for the internet.
        var configuration = SimpleDataLogsClient.Configuration(
            ingestKey: key, endpoint: endpoint ?? URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url
        )
        // Off unless a test turns them on (`ReceiptDeliveryTests`): their daily timer would be one
        // more sleeper on the manual clock, which the tests that wait for sleepers do not expect.
        configuration.completenessReceipts = .off
        adjust(&configuration)
        client.configure(configuration)
    }

    /// Waits until every event tracked so far is in the journal, without sealing or sending.
    /// Bounded: a journal that never gets there (a writer stuck or held) records an issue at the
    /// caller after ``testWaitLimit`` instead of hanging the run.
    func drain(sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await withTimeLimit(waitingFor: "every event tracked so far to reach the journal") { [client] in
                await client.journalEverythingTrackedSoFar()
            }
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
        }
    }

    /// Every event stored in the outbox (sealed batches oldest first, then journals), parsed
    /// from the bytes on disk.
    func journaledEvents() throws -> [JournaledEvent] {
        try JournalReader.events(inOutbox: directory.path)
    }

    /// Journals everything tracked so far, then reads the journal.
    func flushedEvents(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [JournaledEvent] {
        await drain(sourceLocation: sourceLocation)
        return try journaledEvents()
    }

    /// Shuts the client down and removes its folder. Safe to call again (shutting down twice is a
    /// no-op, and the folder is already gone): the scope of `withTestClient` calls it even when
    /// the test already did.
    ///
    /// The shutdown's own limit runs on the manual clock, which nobody advances any more: a
    /// request still in flight to an edge that sits on it would hold it forever. So the wait is
    /// bounded in real time too, and records an issue past ``testWaitLimit``.
    func tearDown() async {
        await shutDown(client, waitingFor: "the client's shutdown at the end of the test")
        directory.remove()
    }
}

/// `client.shutdown(timeLimit:)`, bounded in real time as well. The shutdown's own limit runs on
/// the client's clock (a manual clock in the tests, which nobody may move), and the call ignores
/// its caller's cancellation by design: past ``testWaitLimit`` this records an issue naming the
/// wait and returns, instead of hanging the run.
func shutDown(
    _ client: SimpleDataLogsClient, timeLimit: Duration = .seconds(5), waitingFor what: String = "the client's shutdown",
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        try await withTimeLimit(waitingFor: what) { await client.shutdown(timeLimit: timeLimit) }
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
    }
}

/// Runs `body` with a fresh `TestClient` and tears it down however `body` ends, a thrown error (a
/// failed `#require`) included, so no client's threads or files outlive the test. The parameters
/// are `TestClient.init`'s. Returns what `body` returns.
func withTestClient<Result>(
    configure: Bool = true, key: String = "sdl_pub_test0000000000", gate: WriterGate? = nil,
    tuning: ClientTuning = ClientTuning(), faults: FaultInjection = FaultInjection(),
    directory: TemporaryDirectory = TemporaryDirectory(),
    environment: [String: String] = [:], endpoint: URL? = nil,
    adjust: @escaping @Sendable (inout SimpleDataLogsClient.Configuration) -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TestClient) async throws -> Result
) async rethrows -> Result {
    let test = TestClient(
        configure: configure, key: key, gate: gate, tuning: tuning, faults: faults, directory: directory,
        environment: environment, endpoint: endpoint, adjust: adjust
    )
    return try await tearingDown(test, with: { await $0.tearDown() }, body)
}

/// Runs `body` with `resource`, then `tearDown` on every way out: after `body` returns, and
/// before its error propagates when it throws. The one place the "tear down even when a
/// `#require` fails" rule is written, for `withTestClient` and `withDelivery`.
func tearingDown<Resource: Sendable, Result>(
    _ resource: Resource, with tearDown: (Resource) async -> Void,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Resource) async throws -> Result
) async rethrows -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await tearDown(resource)
        throw error
    }
    await tearDown(resource)
    return result
}

/// Reads outbox files the way recovery will: by the record framing, then each payload decoded
/// as a `JournaledEvent`.
enum JournalReader {
    /// Every event in the outbox at `root`, all areas: batches in name order (oldest first),
    /// set-aside batches, then journals in sequence order.
    static func events(inOutbox root: String, includeSetAside: Bool = false) throws -> [JournaledEvent] {
        let files = FileManager.default
        let areas = ((try? files.contentsOfDirectory(atPath: root + "/areas")) ?? []).sorted()
        var events: [JournaledEvent] = []
        for area in areas {
            let folder = root + "/areas/" + area
            var folders = [folder + "/batches"]
            if includeSetAside { folders.append(folder + "/set-aside") }
            for batches in folders {
                for name in ((try? files.contentsOfDirectory(atPath: batches)) ?? []).sorted() where name.hasSuffix(".batch") {
                    events += try self.events(inFile: batches + "/" + name)
                }
            }
            for name in ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted() where name.hasPrefix("journal-") {
                events += try self.events(inFile: folder + "/" + name)
            }
        }
        return events
    }

    /// The events in one journal or batch file (a batch's header record is skipped).
    static func events(inFile path: String) throws -> [JournaledEvent] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let decoder = JSONDecoder()
        return try bytes.withUnsafeBytes { raw in
            try JournalRecord.scan(raw).records.compactMap { range in
                let payload = Data(raw[range])
                if try decoder.decode(BatchHeaderProbe.self, from: payload).isHeader { return nil }
                return try decoder.decode(JournaledEvent.self, from: payload)
            }
        }
    }

    /// The names of every file under `root`, relative to it, sorted.
    static func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var names: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                names.append(name)
            }
        }
        return names.sorted()
    }
}
