import Foundation
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// A fresh folder under the system's temporary folder, for one test's outbox.
struct TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = "sdl-test") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
    }

    var url: URL { URL(fileURLWithPath: path) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// One client configured against a temporary folder, with the test clocks and a recording log.
struct TestClient: Sendable {
    let client: SimpleDataLogsClient
    let directory: TemporaryDirectory
    let log: RecordingLogSink
    let wallClock: SettableWallClock
    let clock: ManualClock

    init(configure: Bool = true, key: String = "sdl_pub_test0000000000", gate: WriterGate? = nil, environment: [String: String] = [:]) {
        directory = TemporaryDirectory()
        log = RecordingLogSink()
        wallClock = SettableWallClock()
        clock = ManualClock()
        client = SimpleDataLogsClient(
            clock: clock, wallClock: wallClock, logSink: log, fileSystem: PosixFileSystem(),
            writerGate: gate, environment: environment
        )
        if configure { self.configure(key: key) }
    }

    func configure(key: String = "sdl_pub_test0000000000") {
        client.configure(ingestKey: key, storageDirectory: directory.url)
    }

    /// Every event in the journal file, parsed from the bytes on disk.
    func journaledEvents() throws -> [[String: Any]] {
        try JournalReader.events(inFile: directory.path + "/journal.log")
    }

    /// Journals everything tracked so far, then reads the journal.
    func flushedEvents() async throws -> [[String: Any]] {
        await client.flush()
        return try journaledEvents()
    }

    /// Shuts the client down and removes its folder.
    func tearDown() async {
        await client.shutdown()
        directory.remove()
    }
}

/// Reads journal files the way recovery will: by the record framing, then JSON per payload.
enum JournalReader {
    static func events(inFile path: String) throws -> [[String: Any]] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return try bytes.withUnsafeBytes { raw in
            try JournalRecord.scan(raw).records.map { range in
                let payload = Data(raw[range])
                guard let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
                    throw JournalReaderError.notAnObject
                }
                return object
            }
        }
    }

    enum JournalReaderError: Error { case notAnObject }
}

extension Dictionary where Key == String, Value == Any {
    /// The event's `props` object.
    var props: [String: Any] { self["props"] as? [String: Any] ?? [:] }
}
