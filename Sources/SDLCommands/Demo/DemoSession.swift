import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// One run of the demo: the ingest, the client and what has been tracked and shown so far.
/// Each chapter lives in its own `DemoSession+Chapter.swift`.
struct DemoSession {
    let ingest: LocalIngest
    let folder: URL
    let options: DemoOptions
    let console: any Console
    let client: SimpleDataLogsClient
    static let key = "sdl_pub_demo_local_only_0000"

    /// The next `seq` property: every tracked event carries one, so the end can check each
    /// arrived exactly once.
    var nextSeq = 0
    /// How many of the ingest's events have been shown.
    var shown = 0

    init(ingest: LocalIngest, folder: URL, options: DemoOptions, console: any Console) {
        self.ingest = ingest
        self.folder = folder
        self.options = options
        self.console = console
        var tuning = ClientTuning()
        tuning.backoffScale = options.backoffScale
        var environment: [String: String] = [:]
        if let level = options.logLevelName { environment["SDL_LOG_LEVEL"] = level }
        client = SimpleDataLogsClient(
            clock: ContinuousClock(), wallClock: SystemWallClock(),
            logSink: ConsoleLogSink(console: console, toStandardError: false, indent: "     "),
            tuning: tuning, environment: environment
        )
    }

    /// Plays every chapter in order and returns the verdict; stops at the first step that fails.
    mutating func play() async -> DemoResult {
        configure()
        var failure = await firstMinute()
        if failure == nil { failure = await burst() }
        if failure == nil { failure = await outage() }
        return await verdict(failure: failure)
    }

    /// Chapter 1: the ingest and the client.
    private func configure() {
        console.out("1. A local ingest, and the SDK configured against it")
        console.out("   ingest   \(ingest.endpoint.absoluteString)/v1/events (in this process; nothing leaves 127.0.0.1)")
        console.out("   key      \(IngestKey.redacted(Self.key))")
        console.out("   outbox   \(folder.path) (removed at the end)")
        client.configure(SimpleDataLogsClient.Configuration(
            ingestKey: Self.key, endpoint: ingest.endpoint, autocapture: [.appLaunches, .sessions],
            sessionMode: .inactivityTimeout(minutes: 30), storageDirectory: folder, appID: "sdl-demo"
        ))
        console.out("")
    }

    /// Tracks one event with its `seq`, now or back-dated.
    mutating func track(_ name: String, _ properties: [String: PropertyValue] = [:], at date: Date? = nil) {
        var properties = properties
        properties["seq"] = .int(Int64(nextSeq))
        nextSeq += 1
        if let date {
            client.track(name, properties: properties, at: date)
        } else {
            client.track(name, properties: properties)
        }
    }

    /// Prints every event the ingest has counted since the last call, one line each.
    mutating func showArrivals() {
        let events = ingest.receivedEvents
        for event in events.dropFirst(shown) {
            console.out("   ← " + EventLine.text(event))
        }
        shown = events.count
    }

    /// Waits, at most the step timeout, until the ingest has counted `count` events.
    func waitForIngest(_ count: Int, step: String) async -> String? {
        guard await ingest.waitForEvents(count: count, timeout: options.stepTimeout) else {
            return "\(step): the ingest counted \(ingest.summary.accepted) of \(count) events within \(options.stepTimeout)"
        }
        return nil
    }
}
