import Foundation
import Testing
import SDLCommands
import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("CLI: sdl send", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct CLISendTests {
    static let key = "sdl_sec_cli_test_000000"

    @Test("delivered: exit 0, the event at the ingest with its properties typed")
    func delivered() async throws {
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-send")
        defer { ingest.stop(); folder.remove() }
        let (status, console) = await sdl(
            "send", "build_finished", "--prop", "target=ios", "--prop", "seconds=41.5", "--prop", "retries=3",
            "--prop", "green=true", "--prop", "note=", "--prop", "expr=a=b", "--endpoint", ingest.endpoint.absoluteString,
            "--key", Self.key, "--storage", folder.path, "--timeout", "10"
        )
        #expect(status == 0, "\(console.errors)")
        #expect(console.output.contains("delivered build_finished"))
        let event = try #require(ingest.receivedEvents.first)
        #expect(ingest.receivedEvents.count == 1 && event.name == "build_finished")
        #expect(event.properties == [
            "target": "ios", "seconds": .double(41.5), "retries": .int(3), "green": .bool(true), "note": "", "expr": "a=b",
        ])
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
        #expect(!console.output.contains(Self.key) && !console.errors.contains(Self.key), "never the whole key")
    }

    @Test("--verbose tells the SDK's story of the send on standard error: configured, sealed, sent, answered; the key only in part")
    func verbose() async throws {
        let ingest = try LocalIngest()
        let folder = TemporaryDirectory("sdl-send")
        defer { ingest.stop(); folder.remove() }
        let (status, console) = await sdl(
            "send", "build_finished", "--endpoint", ingest.endpoint.absoluteString, "--key", Self.key, "--storage", folder.path, "--verbose"
        )
        #expect(status == 0, "\(console.errors)")
        let story = console.errors
        for line in ["[SDK info] Configured: sending to \(ingest.endpoint.absoluteString)/v1/events", "[SDK debug] Sealed batch ",
                     "[SDK debug] Sending batch ", ": 1 events, ", ": HTTP 202 after ", "[SDK info] Shut down: 1 events delivered"] {
            #expect(story.contains(line), "missing \(line) in:\n\(story)")
        }
        #expect(!story.contains(Self.key) && story.contains(IngestKey.redacted(Self.key)))

        let quiet = try LocalIngest()
        defer { quiet.stop() }
        let (plain, terse) = await sdl("send", "build_finished", "--endpoint", quiet.endpoint.absoluteString, "--key", Self.key, "--storage", folder.path)
        #expect(plain == 0 && !terse.errors.contains("[SDK debug]"), "without --verbose, no debug lines")
    }

    @Test("--verbose answers why an event did not arrive: the failed try, and when and why the next one")
    func verboseWhenDown() async throws {
        let folder = TemporaryDirectory("sdl-send")
        defer { folder.remove() }
        let closed = try closedLoopbackPort()
        let (status, console) = await sdl(
            "send", "nightly_backup", "--endpoint", "http://127.0.0.1:\(closed)", "--key", Self.key, "--storage", folder.path,
            "--timeout", "3", "--verbose"
        )
        #expect(status == 75)
        #expect(console.errors.contains(": no answer ("), "\(console.errors)")
        #expect(console.errors.contains("[SDK debug] Next try in "), "\(console.errors)")
    }

    @Test("the key can come from SDL_INGEST_KEY")
    func keyFromEnvironment() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: Self.key))
        let folder = TemporaryDirectory("sdl-send")
        defer { ingest.stop(); folder.remove() }
        let (status, console) = await sdl(
            ["send", "deploy_finished", "--endpoint", ingest.endpoint.absoluteString, "--storage", folder.path],
            environment: ["SDL_INGEST_KEY": Self.key]
        )
        #expect(status == 0, "\(console.errors)")
        #expect(ingest.receivedEvents.map(\.name) == ["deploy_finished"])
    }

    @Test("ingest down: exit 75 and the event safe on disk; the next run sends it too")
    func ingestDown() async throws {
        let folder = TemporaryDirectory("sdl-send")
        defer { folder.remove() }
        let closed = try closedLoopbackPort()
        let (status, console) = await sdl(
            "send", "nightly_backup", "--prop", "gigabytes=12", "--endpoint", "http://127.0.0.1:\(closed)",
            "--key", Self.key, "--storage", folder.path, "--timeout", "3"
        )
        #expect(status == 75, "\(console.output)\n\(console.errors)")
        #expect(console.errors.contains("not delivered yet") && console.errors.contains("safe on disk"))
        let report = OutboxInspector.inspect(root: folder.path)
        #expect(report.pendingEvents == 1, "the event waits on disk: \(JournalReader.files(under: folder.path))\n\(console.errors)")

        // The same endpoint, now up: an event waits for the endpoint it was tracked for.
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(port: closed))
        defer { ingest.stop() }
        let (again, second) = await sdl(
            "send", "nightly_backup", "--prop", "gigabytes=13", "--endpoint", ingest.endpoint.absoluteString,
            "--key", Self.key, "--storage", folder.path
        )
        #expect(again == 0, "\(second.errors)")
        #expect(second.output.contains("1 events earlier runs left"))
        let sizes = ingest.receivedEvents.compactMap { $0.properties["gigabytes"] }
        #expect(Set(sizes) == [.int(12), .int(13)] && sizes.count == 2, "each once")
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 0)
    }

    @Test("a 401 is not delivered but safe on disk: exit 75, the key shown only in part")
    func unauthorized() async throws {
        let ingest = try LocalIngest(configuration: LocalIngest.Configuration(requiredKey: "sdl_sec_the_right_one_0000"))
        let folder = TemporaryDirectory("sdl-send")
        defer { ingest.stop(); folder.remove() }
        let (status, console) = await sdl(
            "send", "e", "--endpoint", ingest.endpoint.absoluteString, "--key", Self.key, "--storage", folder.path, "--timeout", "3"
        )
        #expect(status == 75, "\(console.errors)")
        #expect(console.errors.contains("401"))
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 1, "\(JournalReader.files(under: folder.path))\n\(console.errors)")
        #expect(!console.errors.contains(Self.key))
    }
}
