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

    @Test("a port in use: exit 1 and what to type instead")
    func portInUse() async throws {
        let other = try LocalIngest()
        defer { other.stop() }
        let (status, console) = await sdl("ingest", "--port", "\(other.port)")
        #expect(status == 1)
        #expect(console.errors.contains("--port \(other.port + 1)"))
    }
}
