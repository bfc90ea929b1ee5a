import Foundation
import Testing
import SDLCommands
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: an area has one writer even when its lock file is deleted", .stuckTestLimit, .tags(.processes), .skippedInFastLoop)
struct AreaLockTests {
    @Test("the lock file deleted behind a live process: the next process takes another area and leaves the live one's files alone")
    func lockFileDeleted() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path
        // On a thread of its own, all while the child lives: blocking waits are fine there.
        let (second, held, refused) = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["hold", path, "30"])
            defer { child.kill() }
            _ = child.readLine(until: { $0 == "ready" })
            try FileManager.default.removeItem(atPath: path + "/areas/a0/lock")
            let second = TestClient(directory: directory)
            second.client.track("second")
            _ = second.client.blockUntilJournaled(atLeast: 1, timeout: .seconds(30))
            // The child's events, wherever they are in its area (a slow run may have sealed them).
            let a0 = path + "/areas/a0"
            let files = JournalReader.files(under: a0).filter { $0.hasSuffix(".log") || $0.hasSuffix(".batch") }
            let held = try files.reduce(0) { $0 + (try JournalReader.events(inFile: a0 + "/" + $1).count) }
            return (second, held, OutboxInspector.requeueSetAsideRefusesHeldArea(root: path, area: "a0"))
        }
        let area = await second.client.pipeline!.outbox.area?.folder
        #expect(area == path + "/areas/a1", "not the live process's area")
        #expect(held == 30, "the live process's journal is not adopted or recovered by another")
        #expect(refused, "sdl outbox sees the area as held too")
        await shutDown(second.client)
        // The live process is gone now: the next launch adopts its area, events once each.
        try await withTestClient(directory: directory) { third in
            let events = try await third.flushedEvents()
            #expect(events.filter { $0.name == "held" }.count == 30)
            #expect(events.filter { $0.name == "second" }.count == 1)
        }
    }
}

extension OutboxInspector {
    /// Whether `sdl outbox --requeue-set-aside` would refuse `area` as in use: it locks areas
    /// the way clients do.
    static func requeueSetAsideRefusesHeldArea(root: String, area: String) -> Bool {
        let setAside = root + "/areas/" + area + "/set-aside"
        let marker = setAside + "/" + JournalName.batch(sequence: 999_999, path: "r", id: UUID().uuidString.lowercased())
        _ = FileManager.default.createFile(atPath: marker, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: marker) }
        if case .failure(.areaInUse) = requeueSetAside(root: root) { return true }
        return false
    }
}
