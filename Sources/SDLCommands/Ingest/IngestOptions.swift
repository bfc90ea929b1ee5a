import SimpleDataLogs

/// `sdl ingest`'s command line, checked.
struct IngestOptions: Sendable, Equatable {
    var port = 4001
    /// The IPv4 address to listen on: this machine only by default; `0.0.0.0` for a phone.
    var host = "127.0.0.1"
    var key: String?
    var latencyMilliseconds = 0
    /// Answer the first `count` requests with `status`.
    var failStatus: Int?
    var failCount = 0
    var json = false

    static let valued: Set<String> = ["--port", "--host", "--key", "--latency-ms", "--fail"]
    static let flags: Set<String> = ["--json"]

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError("unexpected argument \(parsed.positionals[0]).", hint: "Type `sdl ingest [--port 4001] [--key KEY]`; see `sdl ingest --help`.")
        }
        if let text = parsed.value("--port") {
            guard let port = Int(text), (0...65_535).contains(port) else {
                throw UsageError("--port must be a number from 0 to 65535, not \(text).", hint: "Type `sdl ingest --port 4001` (0 picks a free port).")
            }
            self.port = port
        }
        if let host = parsed.value("--host") {
            guard NetworkAddresses.isIPv4(host) else {
                throw UsageError("--host must be an IPv4 address such as 0.0.0.0 (every interface) or 192.168.1.20, not \(host).", hint: "Type `sdl ingest --host 0.0.0.0` so that a phone on the same network can reach it.")
            }
            self.host = host
        }
        if let key = parsed.value("--key") {
            guard IngestKey.kind(of: key) != nil else {
                throw UsageError("--key must be an ingest key starting with sdl_pub_ or sdl_sec_, not \(IngestKey.redacted(key)).", hint: "Type `sdl ingest --key sdl_pub_…`, or leave --key out to accept any well-formed key.")
            }
            self.key = key
        }
        if let text = parsed.value("--latency-ms") {
            guard let milliseconds = Int(text), (0...600_000).contains(milliseconds) else {
                throw UsageError("--latency-ms must be a number of milliseconds from 0 to 600000, not \(text).", hint: "Type, for example, `sdl ingest --latency-ms 300`.")
            }
            latencyMilliseconds = milliseconds
        }
        if let text = parsed.value("--fail") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let status = Int(parts[0]), (200...599).contains(status),
                  let count = parts.count == 2 ? Int(parts[1]) : 1, count > 0 else {
                throw UsageError("--fail takes STATUS:COUNT, not \(text).", hint: "Type, for example, `sdl ingest --fail 503:10` to answer the first 10 requests with 503.")
            }
            failStatus = status
            failCount = count
        }
        json = parsed.flags.contains("--json")
    }
}
