import Foundation
import Testing
import SDLCommands
import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("CLI: sdl ingest", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct CLIIngestTests {
    /// Runs `sdl ingest ARGUMENTS` in-process on a free port, runs `body` with that port, then
    /// stops the server as Ctrl-C would. Each wait is bounded: a server that never listens, or
    /// never stops, fails the test instead of hanging the run.
    private func withIngest(_ arguments: [String], _ body: @Sendable (Int) async -> Void) async throws -> (Int32, CapturedConsole) {
        let console = CapturedConsole()
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let (stops, stopSink) = AsyncStream.makeStream(of: Void.self)
        // The port stream ends when the command does, so a command that fails before it
        // listens ends the wait for the port too.
        let running = Task {
            defer { portSink.finish() }
            return await IngestCommand.run(
                arguments + ["--port", "0"], console: console, onListening: { portSink.yield($0) },
                until: { for await _ in stops { return true }; return true }
            )
        }
        defer { stopSink.finish() }
        let port = try await withTimeLimit(waitingFor: "sdl ingest to listen") { await ports.first { _ in true } }
        if let port { await body(port) }
        stopSink.finish()
        let status = try await withTimeLimit(waitingFor: "sdl ingest to stop once told to") { await running.value }
        return (status, console)
    }

    @Test("prints each accepted event on one line, and a summary when stopped")
    func printsEvents() async throws {
        let folder = TemporaryDirectory("sdl-ingest")
        defer { folder.remove() }
        let (status, console) = try await withIngest([]) { port in
            let (sent, _) = await sdl("send", "deploy_finished", "--prop", "env=staging", "--endpoint", "http://127.0.0.1:\(port)", "--key", "sdl_sec_cli_000000000", "--storage", folder.path)
            #expect(sent == 0)
        }
        #expect(status == 0)
        #expect(console.output.contains("deploy_finished") && console.output.contains("env=\"staging\""))
        #expect(console.errors.contains("listening on http://127.0.0.1:"))
        #expect(console.errors.contains("stopped. 1 requests (1× 202), 1 events counted"))
    }

    @Test("--json prints one JSON object per event; --fail answers the first requests with the status")
    func jsonAndFail() async throws {
        let folder = TemporaryDirectory("sdl-ingest")
        defer { folder.remove() }
        let (status, console) = try await withIngest(["--json", "--fail", "503:1"]) { port in
            let arguments = ["send", "e", "--prop", "n=2", "--endpoint", "http://127.0.0.1:\(port)", "--key", "sdl_pub_cli_000000000", "--storage", folder.path, "--timeout", "\(5 * sanitizerSlack)"]
            let (sent, output) = await sdl(arguments)
            // The first try gets the 503; the shutdown's try is the second request.
            #expect(sent == 0, "\(output.errors)")
        }
        #expect(status == 0)
        let line = console.output.split(separator: "\n").first { $0.hasPrefix("{") }
        #expect(line?.contains(#""event":"e""#) == true && line?.contains(#""props":{"n":2}"#) == true, "\(console.output)")
        #expect(console.errors.contains("POST /v1/events") && console.errors.contains("→ 503 (unavailable, from --fail)"))
    }

    @Test("--host 0.0.0.0 prints the URLs a phone can use, and takes an event sent to this machine's network address", LocalIngestHostTests.hasNetworkAddress)
    func everyInterface() async throws {
        let address = try #require(LocalIngestHostTests.networkAddress)
        let (status, console) = try await withIngest(["--host", "0.0.0.0"]) { port in
            // `sdl send` refuses plain HTTP to a host that is not loopback, as the SDK does; the
            // app's side of that is `allowsInsecureHTTP`, tested with the endpoint rules.
            let statusCode = try? await LocalIngestHostTests.post(to: address, port: port)
            #expect(statusCode == 202, "through \(address)")
        }
        #expect(status == 0)
        #expect(console.errors.contains("listening on every interface, port "), "\(console.errors)")
        #expect(console.errors.contains("from this machine (and the iOS Simulator): http://127.0.0.1:"))
        #expect(console.errors.contains("from a phone on the same network: http://\(address):"), "\(console.errors)")
        #expect(console.errors.contains("allowsInsecureHTTP"))
        #expect(console.errors.contains("1 events counted"), "\(console.errors)")
    }

    @Test("the lines printed at start: localhost by default, the network URLs beyond loopback, and a note when there are none")
    func listeningLines() {
        let interfaces = [NetworkAddresses.Interface(name: "en0", address: "192.168.1.20")]
        let byDefault = IngestCommand.listeningLines(host: "127.0.0.1", port: 4001, requestedPort: 4001, keyNote: "any key", interfaces: interfaces)
        #expect(byDefault == ["sdl ingest: listening on http://localhost:4001 (POST /v1/events, any key); stop with Ctrl-C"])
        let every = IngestCommand.listeningLines(host: "0.0.0.0", port: 4001, requestedPort: 4001, keyNote: "any key", interfaces: interfaces)
        #expect(every.contains("  from a phone on the same network: http://192.168.1.20:4001 (en0)"), "\(every)")
        let none = IngestCommand.listeningLines(host: "0.0.0.0", port: 4001, requestedPort: 4001, keyNote: "any key", interfaces: [])
        #expect(none.contains { $0.contains("no network address besides loopback") }, "\(none)")
        let one = IngestCommand.listeningLines(host: "192.168.1.20", port: 4001, requestedPort: 4001, keyNote: "any key", interfaces: interfaces)
        #expect(one.first == "sdl ingest: listening on http://192.168.1.20:4001 (POST /v1/events, any key); stop with Ctrl-C")
    }

    @Test("an address that is not this machine's: exit 1 and what to type instead")
    func foreignAddress() async {
        let (status, console) = await sdl("ingest", "--host", "203.0.113.7", "--port", "0")
        #expect(status == 1)
        #expect(console.errors.contains("Is 203.0.113.7 an address of this machine? `--host 0.0.0.0`"), "\(console.errors)")
    }

    @Test("Docs/sdl.md names every option `sdl ingest --help` lists, and no feature the tool has as \"not implemented\"")
    func docsNameEveryOption() async throws {
        let (status, console) = await sdl("ingest", "--help")
        #expect(status == 0)
        let options = Set(console.output.matches(of: /--[a-z][a-z-]+/).map { String($0.output) }).subtracting(["--help"])
        #expect(options.contains("--host"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
        let doc = try String(contentsOf: root.appendingPathComponent("Docs/sdl.md"), encoding: .utf8)
        let row = try #require(doc.split(separator: "\n").first { $0.hasPrefix("| `sdl ingest") })
        #expect(options.filter { !row.contains($0) }.isEmpty, "Docs/sdl.md's sdl ingest row lacks \(options.filter { !row.contains($0) }.sorted())")
        #expect(!doc.contains("not implemented"))
    }

    @Test("a port in use: exit 1 and what to type instead")
    func portInUse() async throws {
        let other = try LocalIngest()
        defer { other.stop() }
        let (status, console) = await sdl("ingest", "--port", "\(other.port)")
        #expect(status == 1)
        #expect(console.errors.contains("--port \(other.port + 1)"))
    }
}
