import Foundation
import SDLCommands
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 23, item 3: a link inside the storage folder (a mistake, or another user's in a shared
/// folder) must not turn the outbox's deletes, renames and writes against the folder it points to.
@Suite("Hardening: links inside the storage folder", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct LinkedFolderTests {
    /// Where a link is planted, relative to the storage folder.
    static let locations = ["areas/a0/tmp", "areas/a0/batches", "quarantine", "areas", "areas/a0"]

    @Test(
        "a folder inside the outbox that is a link is never followed: launch, recovery, the opt-out and `sdl send` leave every file it points to untouched, and the SDK keeps its own events",
        arguments: locations
    )
    func linkedFolder(_ location: String) async throws {
        let target = try LinkTarget()
        defer { target.remove() }
        let keepsEarlierEvents = location != "areas"

        // Launch (with recovery and adoption), delivery, then the opt-out, on the linked folder.
        let directory = try await Self.outbox(linking: location, to: target)
        try await withDelivery(directory: directory) { delivery in
            delivery.track(3..<5)
            let result = try await withTimeLimit(.seconds(30), waitingFor: "flush() to return") { await delivery.client.flush() }
            #expect(delivery.deliveredSeqs == (keepsEarlierEvents ? Array(0..<5) : [3, 4]), "\(location): \(result)")
            let errors = delivery.test.log.lines.filter { $0.level == .error }.map(\.message)
            #expect(errors.contains { $0.contains("\(directory.path)/\(location) is a link") }, "\(location): \(errors)")
            #expect(target.isUntouched(), "\(location): launch and delivery changed \(target.changes())")

            delivery.track(5..<8)
            delivery.client.setEnabled(false)
            await delivery.test.drain()
            #expect(delivery.client.counters.deletedByOptOut == 3, "\(location)")
            #expect(target.isUntouched(), "\(location): the opt-out changed \(target.changes())")
        }

        // `sdl send` on a folder linked the same way: a fresh process's launch, recovery and send.
        let sent = try await Self.outbox(linking: location, to: target)
        defer { sent.remove() }
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let (status, console) = await sdl(
            "send", "after_the_link", "--endpoint", ingest.endpoint.absoluteString, "--key", "sdl_sec_cli_test_000000",
            "--storage", sent.path, "--timeout", "10"
        )
        #expect(status == 0, "\(location): \(console.errors)")
        #expect(ingest.receivedEvents.count == (keepsEarlierEvents ? 4 : 1) && ingest.receivedEvents.last?.name == "after_the_link", "\(location)")
        #expect(console.errors.contains("\(sent.path)/\(location) is a link"), "\(location): \(console.errors)")
        #expect(target.isUntouched(), "\(location): `sdl send` changed \(target.changes())")

        // `sdl outbox` names the link and reads nothing through it.
        let (listed, report) = await sdl("outbox", sent.path)
        #expect(listed == 0, "\(location): \(report.errors)")
        #expect(report.output.contains("\(sent.path)/\(location): a link; the SDK never follows"), "\(location): \(report.output)")
        #expect(!report.output.contains("precious") && !report.output.contains("spare-0"), "\(location): \(report.output)")
        #expect(target.isUntouched(), "\(location): `sdl outbox` changed \(target.changes())")
    }

    /// A storage folder where an earlier run left three events (in a dead area, `a5`, for the
    /// next launch to adopt), with a link to `target` planted at `location`. With `areas` linked,
    /// the earlier area is out of reach (moved aside, as a user replacing the folder would).
    static func outbox(linking location: String, to target: LinkTarget) async throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        let earlier = TestClient(directory: directory)
        for seq in 0..<3 { earlier.client.track("e", properties: ["seq": .int(Int64(seq))]) }
        await earlier.client.flush()
        await shutDown(earlier.client)
        let files = FileManager.default
        // The earlier run's area as an earlier version left it, with no owner recorded: any key
        // and endpoint may send it (the delivery below and `sdl send` use others), so this test
        // is about links alone (`KeyAndEndpointTests` covers owners).
        try files.removeItem(atPath: directory.path + "/areas/a0/owner")
        try files.moveItem(atPath: directory.path + "/areas/a0", toPath: directory.path + "/areas/a5")
        switch location {
        case "areas":
            try files.moveItem(atPath: directory.path + "/areas", toPath: directory.path + "/areas-moved-aside")
        case "quarantine":
            try files.removeItem(atPath: directory.path + "/quarantine")
        default:
            let parent = (directory.path + "/" + location as NSString).deletingLastPathComponent
            try files.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        try files.createSymbolicLink(atPath: directory.path + "/" + location, withDestinationPath: target.path)
        return directory
    }
}

/// A folder outside the outbox, holding files named as the outbox names its own (a batch, a
/// journal, a spare, a lock) and one that is not: each would be deleted, moved, truncated or
/// replayed by an outbox that followed a link to it.
struct LinkTarget {
    let path: String
    private let original: [String: Data]

    init() throws {
        path = TemporaryDirectory("link-target").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let batch = "000000000001-r-\(UUID().uuidString.lowercased()).batch"
        var original: [String: Data] = [:]
        for (name, text) in [("precious.txt", "precious"), (batch, "not a batch"), ("journal-000000000001.log", "not a journal"),
                             ("spare-0", "not a spare"), ("lock", "not a lock")] {
            original[name] = Data(text.utf8)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
        }
        self.original = original
    }

    /// What is in the folder now, name by name.
    private func current() -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return Dictionary(uniqueKeysWithValues: names.map { ($0, (try? Data(contentsOf: URL(fileURLWithPath: path + "/" + $0))) ?? Data()) })
    }

    /// Whether exactly the original files are there, with their original bytes.
    func isUntouched() -> Bool { current() == original }

    /// The names added, removed or changed, for a failure's message.
    func changes() -> [String] {
        let now = current()
        return Set(now.keys).union(original.keys).filter { now[$0] != original[$0] }.sorted()
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
