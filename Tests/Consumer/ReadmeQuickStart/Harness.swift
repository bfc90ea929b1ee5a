// The part of the README check (scripts/consumer-check.sh) that is not the README: the port of
// the `sdl ingest` the check started, and the one event and the one flush that follow README's
// init() (main.swift, generated from README.md). Whether the event arrived with a device id is
// judged by the script, from what the ingest printed.
import Foundation
import SimpleDataLogs

/// The port of the ingest the check started; main.swift puts it in README's local endpoint.
let readmeIngestPort = ProcessInfo.processInfo.environment["README_INGEST_PORT"] ?? "4001"

/// Tracks one event as an app would after launch, flushes once, says what the flush returned,
/// and exits: 0 when the flush delivered something, 1 otherwise. No shutdown: a second send
/// would hide an event that one flush did not deliver.
func trackOneEventAndFlushOnce() async {
    SimpleDataLogs.track("readme_quick_start", properties: ["step": "first"])
    let result = await SimpleDataLogs.flush()
    print("readme quick start: flush() delivered \(result.delivered), \(result.remaining) remaining")
    exit(result.delivered > 0 ? 0 : 1)
}
