import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("An app and its extension on one App Group folder (AppleNotes' recipe)")
struct SharedFolderTests {
    @Test("both configured at once on one folder with the install id: an area each, the same install id on every event, each event once", .tags(.sockets))
    func appAndExtension() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        // Kept explicit: both share the folder and shut down before it is removed.
        let app = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: { $0.usesInstallID = true })
        let widget = TestClient(directory: directory, endpoint: ingest.endpoint, adjust: { $0.usesInstallID = true })
        for seq in 0..<60 { app.client.track("app", properties: ["seq": .int(Int64(seq))]) }
        for seq in 0..<40 { widget.client.track("widget", properties: ["seq": .int(Int64(seq))]) }
        await app.drain()
        await widget.drain()
        // Two areas (a0 and a1, or a0 and a2 when the two launches raced: see OutboxAreaTests).
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/areas").count == 2)
        await app.client.flush()
        await widget.client.flush()
        let events = ingest.receivedEvents
        #expect(events.count == 100)
        #expect(Set(events.map { "\($0.name)-\($0.properties["seq"].map { "\($0)" } ?? "")" }).count == 100, "each event once")
        let ids = Set(events.map(\.deviceID))
        let stored = try String(contentsOfFile: directory.path + "/install-id", encoding: .utf8)
        #expect(ids == [stored.trimmingCharacters(in: .newlines)], "one install id for the app and its extension: \(ids)")
        await shutDown(app.client)
        await shutDown(widget.client)
    }
}
