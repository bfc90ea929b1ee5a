import Foundation
import Testing
import SDLCommands
import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("CLI: sdl outbox drain", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct CLIDrainTests {
    static let key = "sdl_sec_cli_drain_000000"

    /// Leaves `count` events in `folder` for `ingest`'s endpoint and `key`, as a run that met a
    /// refusing ingest does: `sdl send` with every answer a 503 (exit 75, the event on disk).
    static func leave(_ count: Int, in folder: TemporaryDirectory, for ingest: LocalIngest, key: String = key) async {
        ingest.script(Array(repeating: .status(503), count: 1_000))
        for index in 0..<count {
            let (status, console) = await sdl(
                "send", "left_behind", "--prop", "index=\(index)", "--endpoint", ingest.endpoint.absoluteString,
                "--key", key, "--storage", folder.path, "--timeout", "10"
            )
            #expect(status == 75, "\(console.errors)")
        }
        ingest.script([])
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == count)
    }

    @Test("what earlier runs left goes out, once, and nothing new is tracked: exit 0, the folder empty")
    func drained() async throws {
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-drain")
        defer { ingest.stop(); folder.remove() }
        await Self.leave(2, in: folder, for: ingest)
        let (status, console) = await sdl(
            "outbox", "drain", folder.path, "--key", Self.key, "--endpoint", ingest.endpoint.absoluteString, "--timeout", "10"
        )
        #expect(status == 0, "\(console.errors)")
        #expect(console.output.contains("delivered the 2 events earlier runs left"), "\(console.output)")
        #expect(ingest.receivedEvents.map(\.name) == ["left_behind", "left_behind"], "no event of its own")
        #expect(Set(ingest.receivedEvents.compactMap { $0.properties["index"] }) == [.int(0), .int(1)])
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
    }

    @Test("the ingest still refusing: exit 75, everything kept on disk for the next drain")
    func stillDown() async throws {
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-drain")
        defer { ingest.stop(); folder.remove() }
        await Self.leave(1, in: folder, for: ingest)
        ingest.script(Array(repeating: .status(503), count: 1_000))
        let (status, console) = await sdl(
            "outbox", "drain", folder.path, "--key", Self.key, "--endpoint", ingest.endpoint.absoluteString, "--timeout", "10"
        )
        #expect(status == 75, "\(console.output)\n\(console.errors)")
        #expect(console.errors.contains("sdl outbox drain: not delivered yet") && console.errors.contains("safe on disk"))
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 1)
        #expect(ingest.receivedEvents.isEmpty)
    }

    @Test("another key's events are left alone and named; with nothing of its own waiting, exit 0")
    func otherKeyLeftAlone() async throws {
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-drain")
        defer { ingest.stop(); folder.remove() }
        await Self.leave(1, in: folder, for: ingest, key: "sdl_sec_other_pod_000000")
        let (status, console) = await sdl(
            "outbox", "drain", folder.path, "--key", Self.key, "--endpoint", ingest.endpoint.absoluteString, "--timeout", "10"
        )
        #expect(status == 0, "\(console.errors)")
        #expect(console.output.contains("nothing was waiting"), "\(console.output)")
        #expect(console.errors.contains("sdl outbox drain: left 1 events in area") && console.errors.contains("alone"), "\(console.errors)")
        #expect(ingest.receivedEvents.isEmpty)
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 1)
    }

    @Test("a folder that is not there: exit 66, and none is made; one no run wrote: exit 0, nothing made; usage errors: 64")
    func refusals() async throws {
        let parent = TemporaryDirectory("sdl-drain")
        defer { parent.remove() }
        let missing = parent.path + "/not-here"
        let (status, console) = await sdl("outbox", "drain", missing, "--key", Self.key, "--endpoint", "http://127.0.0.1:9")
        #expect(status == 66 && console.errors.contains("no outbox at"), "\(console.errors)")
        #expect(!FileManager.default.fileExists(atPath: missing))
        let (noKey, noKeyConsole) = await sdl("outbox", "drain", parent.path, "--endpoint", "http://127.0.0.1:9")
        #expect(noKey == 64 && noKeyConsole.errors.contains("no ingest key"), "\(noKey) \(noKeyConsole.errors)")
        let (two, twoConsole) = await sdl("outbox", "drain", parent.path, parent.path, "--key", Self.key)
        #expect(two == 64 && twoConsole.errors.contains("one folder at a time"))
        // A folder no run wrote: nothing to send, and nothing made in it.
        try FileManager.default.createDirectory(atPath: parent.path + "/fresh-volume", withIntermediateDirectories: true)
        let (fresh, freshConsole) = await sdl("outbox", "drain", parent.path + "/fresh-volume", "--key", Self.key, "--endpoint", "http://127.0.0.1:9")
        #expect(fresh == 0 && freshConsole.output.contains("holds no outbox"), "\(freshConsole.output)\(freshConsole.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path + "/fresh-volume").isEmpty)
        let (help, helpConsole) = await sdl("outbox", "drain", "--help")
        #expect(help == 0 && helpConsole.output.contains("Exit status"))
    }

    @Test("after a key rotation: --previous-key sends what the old key left with the new one, exit 0; a malformed one is a usage error")
    func previousKey() async throws {
        let newKey = "sdl_sec_cli_drain_rotated_1111"
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-drain")
        defer { ingest.stop(); folder.remove() }
        await Self.leave(2, in: folder, for: ingest)
        let (status, console) = await sdl(
            "outbox", "drain", folder.path, "--key", newKey, "--previous-key", Self.key,
            "--endpoint", ingest.endpoint.absoluteString, "--timeout", "10"
        )
        #expect(status == 0, "\(console.errors)")
        #expect(ingest.receivedEvents.map(\.name) == ["left_behind", "left_behind"])
        #expect(ingest.requests.filter { $0.status == 202 }.allSatisfy { $0.header("Authorization") == "Bearer \(newKey)" })
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
        let (usage, usageConsole) = await sdl("outbox", "drain", folder.path, "--key", newKey, "--previous-key", "old-key")
        #expect(usage == 64 && usageConsole.errors.contains("is not an ingest key"), "\(usageConsole.errors)")
    }

    @Test("a folder a process killed with SIGKILL left, the edge down: exit 75 and everything kept; the edge back: all delivered once, exit 0", .tags(.processes))
    func killedProcessFolder() async throws {
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-drain")
        defer { ingest.stop(); folder.remove() }
        let path = folder.path, endpoint = ingest.endpoint.absoluteString
        ingest.script(Array(repeating: .status(503), count: 10_000))
        // The child tracks 30 events for the tests' key and this endpoint, waits until they are
        // journaled, says so, and is killed with SIGKILL.
        let ready = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["hold", path, "30"], environment: ["SDL_TEST_ENDPOINT": endpoint])
            defer { child.kill() }
            return child.readLine(until: { $0 == "ready" }) != nil
        }
        #expect(ready)
        #expect(OutboxInspector.inspect(root: path).pendingEvents == 30)

        let (down, downConsole) = await sdl("outbox", "drain", path, "--key", "sdl_pub_test0000000000", "--endpoint", endpoint, "--timeout", "3")
        #expect(down == 75, "\(downConsole.output)\n\(downConsole.errors)")
        #expect(OutboxInspector.inspect(root: path).pendingEvents == 30)

        ingest.script([])
        let (status, console) = await sdl("outbox", "drain", path, "--key", "sdl_pub_test0000000000", "--endpoint", endpoint, "--timeout", "10")
        #expect(status == 0, "\(console.output)\n\(console.errors)")
        let held = ingest.receivedEvents.filter { $0.name == "held" }
        let seqs = Set(held.compactMap { $0.properties["seq"] })
        #expect(held.count == 30 && seqs.count == 30, "each of the 30 once: \(held.count) received, \(seqs.count) distinct; \(console.output)\n\(console.errors)")
        #expect(OutboxInspector.inspect(root: path).pendingEvents == 0, "\(OutboxInspector.inspect(root: path))")
    }
}
