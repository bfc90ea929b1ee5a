#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimpleDataLogs
import SimpleDataLogsTesting

/// Writes one line to a descriptor at once (`print` buffers when stdout is a pipe, and
/// `fputs(…, stderr)` does not compile in Swift 6 mode).
func writeLine(_ line: String, to descriptor: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
        guard written > 0 else { return }
        offset += written
    }
}

/// The value after `flag` in the arguments, if present.
func option(_ flag: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// `sdl ingest [--port 4001] [--key KEY]`: serves the local ingest until killed, one line per event counted.
func runIngest(_ arguments: [String]) async -> Int32 {
    let portText = option("--port", in: arguments) ?? "4001"
    guard let port = Int(portText), (0...65_535).contains(port) else {
        writeLine("sdl ingest: --port must be a number from 0 to 65535, not \(portText)", to: 2)
        return 64
    }
    let ingest: LocalIngest
    do {
        ingest = try LocalIngest(configuration: .init(port: port, requiredKey: option("--key", in: arguments)))
    } catch {
        writeLine("sdl ingest: \(error)", to: 2)
        return 1
    }
    writeLine("sdl ingest: listening on http://127.0.0.1:\(ingest.port)/v1/events; stop with Ctrl-C")
    var printed = 0
    while true {
        guard await ingest.waitForEvents(count: printed + 1, timeout: .seconds(3_600)) else { continue }
        let events = ingest.receivedEvents
        for event in events.dropFirst(printed) {
            let properties = event.properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            writeLine("\(event.timestamp) \(event.name) \(event.eventID)\(properties.isEmpty ? "" : " " + properties)")
        }
        printed = events.count
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--version":
    writeLine("sdl \(SimpleDataLogsVersion.current)")
case "ingest":
    exit(await runIngest(Array(arguments.dropFirst())))
default:
    writeLine("sdl \(SimpleDataLogsVersion.current): the demo is not ready yet (it needs the uploader). `sdl ingest [--port 4001] [--key KEY]` runs the local ingest.")
}
