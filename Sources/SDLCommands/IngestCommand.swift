import SimpleDataLogs
import SimpleDataLogsTesting

/// `sdl ingest`: the local ingest as a long-running development server.
package enum IngestCommand {
    static let help = """
        Usage: sdl ingest [--port 4001] [--host ADDRESS] [--key KEY] [--latency-ms N] [--fail STATUS:COUNT] [--json]

        Runs a local ingest at http://localhost:4001 (events go to /v1/events) that speaks the
        SimpleDataLogs ingest contract: point an app at it with endpoint http://localhost:4001.
        Prints each event it counts on one line (or as JSON with --json), and each rejected event
        or refused request with the reason, on standard error. Ctrl-C prints a summary and exits 0.

        Options:
          --port N            the port (default 4001; 0 picks a free one)
          --host ADDRESS      the IPv4 address to listen on (default 127.0.0.1: this machine only);
                              0.0.0.0 listens on every interface, so a phone on the same network can
                              send to it, and prints the URLs to use
          --key KEY           accept only this key (default: any sdl_pub_… or sdl_sec_… key)
          --latency-ms N      wait N milliseconds before every answer
          --fail STATUS:COUNT answer the first COUNT requests with STATUS (e.g. 503:10)
          --json              one JSON object per event on standard output
          --help              this text

        Exit status: 0 stopped by Ctrl-C or SIGTERM; 1 the port could not be bound; 64 usage error.
        """

    static func run(_ arguments: [String], console: any Console) async -> Int32 {
        // Catching starts before the server says it listens, so an early Ctrl-C still gets the summary.
        let (signals, received) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(4))
        let catcher = TerminationSignals.start { received.yield($0) }
        defer {
            catcher?.stop()
            received.finish()
        }
        return await run(arguments, console: console, onListening: { _ in }, until: {
            for await _ in signals { return true }
            return false
        })
    }

    /// Runs the server until `stop` returns.
    /// - Parameters:
    ///   - arguments: The words after `sdl ingest`.
    ///   - console: Where events and notes go.
    ///   - onListening: Called with the port once the server listens (tests start sending then).
    ///   - stop: Returns when the server should stop (Ctrl-C in the tool; a test's signal in tests).
    /// - Returns: The exit status.
    package static func run(
        _ arguments: [String], console: any Console, onListening: @Sendable (Int) -> Void,
        until stop: @escaping @Sendable () async -> Bool
    ) async -> Int32 {
        let options: IngestOptions
        do {
            let parsed = try ParsedArguments(arguments, valued: IngestOptions.valued, flags: IngestOptions.flags, command: "sdl ingest")
            if parsed.wantsHelp {
                console.out(help)
                return ExitCode.success
            }
            options = try IngestOptions(parsed)
        } catch {
            return error.report(as: "sdl ingest", to: console)
        }
        let ingest: LocalIngest
        do {
            ingest = try LocalIngest(configuration: LocalIngest.Configuration(
                port: options.port, host: options.host, requiredKey: options.key, addedLatency: .milliseconds(options.latencyMilliseconds)
            ))
        } catch {
            console.err("sdl ingest: \(error)")
            console.err("  Is another server on port \(options.port)? Type `sdl ingest --port \(options.port + 1)`, or `--port 0` for any free port.")
            if options.host != "0.0.0.0", !NetworkAddresses.isLoopback(options.host) {
                console.err("  Is \(options.host) an address of this machine? `--host 0.0.0.0` listens on all of them.")
            }
            return ExitCode.failure
        }
        if let status = options.failStatus {
            ingest.script(Array(repeating: .status(status), count: options.failCount))
        }
        let keyNote = options.key.map { "only key \(IngestKey.redacted($0))" } ?? "any sdl_pub_/sdl_sec_ key"
        for line in listeningLines(host: options.host, port: ingest.port, requestedPort: options.port, keyNote: keyNote) {
            console.err(line)
        }
        if let status = options.failStatus { console.err("  the first \(options.failCount) requests get \(status)") }
        onListening(ingest.port)
        await serve(ingest, options: options, console: console, until: stop)
        ingest.stop()
        let summary = ingest.summary
        let statuses = summary.byStatus.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
        console.err("sdl ingest: stopped. \(summary.requests) requests (\(statuses.isEmpty ? "none" : statuses)), \(summary.accepted) events counted, \(summary.duplicates) duplicates, \(summary.rejected) rejected.")
        return ExitCode.success
    }

    /// Where the ingest listens, as the lines it prints at start: the URL for this machine and,
    /// beyond loopback, the URLs a phone on the same network can use.
    /// - Parameters:
    ///   - host: The address listened on.
    ///   - port: The port bound.
    ///   - requestedPort: The port asked for (0: the system's choice, shown as 127.0.0.1).
    ///   - keyNote: Which keys are accepted.
    ///   - interfaces: This machine's addresses beyond loopback.
    /// - Returns: The lines, in order.
    package static func listeningLines(
        host: String, port: Int, requestedPort: Int, keyNote: String,
        interfaces: [NetworkAddresses.Interface] = NetworkAddresses.reachableFromTheNetwork()
    ) -> [String] {
        if NetworkAddresses.isLoopback(host) {
            let shown = requestedPort == 0 || host != "127.0.0.1" ? host : "localhost"
            return ["sdl ingest: listening on http://\(shown):\(port) (POST /v1/events, \(keyNote)); stop with Ctrl-C"]
        }
        var lines: [String]
        var network: [String]
        if host == "0.0.0.0" {
            lines = ["sdl ingest: listening on every interface, port \(port) (POST /v1/events, \(keyNote)); stop with Ctrl-C",
                     "  from this machine (and the iOS Simulator): http://127.0.0.1:\(port)"]
            network = interfaces.map { "  from a phone on the same network: http://\($0.address):\(port) (\($0.name))" }
            if network.isEmpty { network = ["  this machine has no network address besides loopback: a phone cannot reach it yet"] }
        } else {
            lines = ["sdl ingest: listening on http://\(host):\(port) (POST /v1/events, \(keyNote)); stop with Ctrl-C"]
            network = []
        }
        // Plain HTTP to an address that is not loopback: the SDK refuses it unless told, and iOS
        // needs an App Transport Security exception; say so where the URL is read.
        network.append("  an app sending here needs allowsInsecureHTTP (plain HTTP) and, on iOS, an App Transport Security exception: see Docs/sdl.md")
        return lines + network
    }

    /// Prints as things arrive until `stop` returns, then prints what is left.
    private static func serve(_ ingest: LocalIngest, options: IngestOptions, console: any Console, until stop: @escaping @Sendable () async -> Bool) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var printer = IngestPrinter(ingest: ingest, console: console, json: options.json)
                var seen = 0
                while !Task.isCancelled {
                    let target = seen
                    // Returns false on cancellation; the loop then prints the rest and ends.
                    _ = await ingest.waitForSummary(timeout: .seconds(3_600)) { $0.requests > target }
                    printer.printNew()
                    seen = ingest.summary.requests
                }
                printer.printNew()
            }
            group.addTask { _ = await stop() }
            await group.next()
            group.cancelAll()
        }
    }
}
