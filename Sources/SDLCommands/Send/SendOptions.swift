import Foundation
import SimpleDataLogs

/// `sdl send`'s command line (and `sdl outbox drain`'s), checked: everything the send needs, or
/// the usage error.
struct SendOptions: Sendable {
    /// The event to track, or `nil` for a drain: only what earlier runs left is sent.
    var event: String?
    var properties: [String: PropertyValue]
    var endpoint: URL
    var key: String
    /// `--previous-key` (drain only): keys the project used before ``key``, whose leftovers are
    /// sent with it (``SimpleDataLogsClient/Configuration/previousIngestKeys``).
    var previousKeys: [String] = []
    var storage: URL?
    var timeout: Duration
    /// `--verbose`: the SDK's debug lines on standard error.
    var verbose: Bool

    static let valued: Set<String> = ["--prop", "--endpoint", "--key", "--storage", "--timeout"]
    static let flags: Set<String> = ["--verbose"]

    init(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
        guard let event = parsed.positionals.first else {
            throw UsageError("which event? The event name is missing.", hint: "Type `sdl send EVENT [--prop key=value]…`, for example `sdl send deploy_finished --prop env=staging`.")
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                "one event at a time; unexpected \(parsed.positionals[1]).",
                hint: "Properties go with --prop: `sdl send \(event) --prop \(parsed.positionals[1].contains("=") ? parsed.positionals[1] : "key=value")`."
            )
        }
        let bytes = event.utf8.count
        guard bytes > 0, bytes <= 200, !event.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw UsageError("the event name must be 1 to 200 UTF-8 bytes without control characters.", hint: "Type a name such as `build_finished`.")
        }
        self.event = event
        verbose = parsed.flags.contains("--verbose")
        var properties: [String: PropertyValue] = [:]
        for argument in parsed.all("--prop") {
            let (key, value) = try PropertyArgument.parse(argument)
            properties[key] = value
        }
        self.properties = properties
        (endpoint, key, timeout) = try Self.destination(parsed, environment: environment)
        storage = parsed.value("--storage").map { URL(fileURLWithPath: $0) }
    }

    /// `sdl outbox drain`'s options: no event, the folder named.
    /// - Parameters:
    ///   - folder: The outbox folder to drain.
    ///   - parsed: The command line.
    ///   - environment: The environment (`SDL_INGEST_KEY`).
    init(draining folder: String, _ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
        event = nil
        properties = [:]
        verbose = parsed.flags.contains("--verbose")
        (endpoint, key, timeout) = try Self.destination(parsed, environment: environment)
        previousKeys = parsed.all("--previous-key")
        for previous in previousKeys where IngestKey.kind(of: previous) == nil {
            throw UsageError("the previous key \(IngestKey.redacted(previous)) is not an ingest key (they start with sdl_pub_ or sdl_sec_).", hint: "Pass the key this project used before --key.")
        }
        storage = URL(fileURLWithPath: folder)
    }

    /// `--endpoint`, `--key` (or `SDL_INGEST_KEY`) and `--timeout`, checked as `sdl send` and
    /// `sdl outbox drain` both take them.
    private static func destination(
        _ parsed: ParsedArguments, environment: [String: String]
    ) throws(UsageError) -> (endpoint: URL, key: String, timeout: Duration) {
        let endpointText = parsed.value("--endpoint") ?? SimpleDataLogsClient.Configuration.defaultEndpoint.absoluteString
        guard let endpoint = URL(string: endpointText), let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https",
              endpoint.host?.isEmpty == false else {
            throw UsageError("--endpoint must be an http:// or https:// URL, not \(endpointText).", hint: "Type, for example, `--endpoint http://localhost:4001`.")
        }

        guard let key = parsed.value("--key") ?? environment["SDL_INGEST_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw UsageError("no ingest key.", hint: "Pass `--key sdl_sec_…` or set SDL_INGEST_KEY in the environment.")
        }
        guard IngestKey.kind(of: key) != nil else {
            throw UsageError("the key \(IngestKey.redacted(key)) is not an ingest key (they start with sdl_pub_ or sdl_sec_).", hint: "Copy the key from your SimpleDataLogs project into `--key` or SDL_INGEST_KEY.")
        }

        guard let text = parsed.value("--timeout") else { return (endpoint, key, .seconds(10)) }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3_600 else {
            throw UsageError("--timeout must be a number of seconds from 0 to 3600, not \(text).", hint: "Type, for example, `--timeout 10`.")
        }
        return (endpoint, key, .milliseconds(Int64((seconds * 1_000).rounded(.up))))
    }
}
