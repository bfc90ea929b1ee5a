import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

extension DemoSession {
    /// Chapter 4: the ingest answers 503 for a while; the events wait on disk and arrive when
    /// it recovers, sent again by the SDK's backoff timer (no new event, no flush needed).
    mutating func outage() async -> String? {
        let failures = options.outageFailures
        let scale = options.backoffScale
        console.out("4. An outage: the ingest answers 503 to the next \(failures) requests")
        ingest.script(Array(repeating: .status(503), count: failures))
        let reports = client.deliveryReports()
        let first = nextSeq
        for index in 0..<options.outageEvents {
            track("document_saved", ["words": .int(Int64(120 + index))])
        }
        console.out("   track \(options.outageEvents) document_saved events")
        let result = await client.flush()
        console.out("   flush(): delivered \(result.delivered), \(result.remaining) waiting; the events wait on disk:")
        showOutbox()
        let factor = scale > 0 ? Int((1 / scale).rounded()) : 0
        console.out("   the SDK retries on its own with jittered backoff (up to 1 s, then 2 s, 4 s… at most 5 min);")
        console.out("   this demo shortens every wait \(factor)× (ClientTuning.backoffScale) so it ends in seconds")
        let start = ContinuousClock.now
        let expected = options.outageEvents
        let timeout = options.stepTimeout
        let console = console
        // Follow the retries as the SDK reports them, until the batch is delivered.
        let delivered = await Deadline.run(timeout, on: ContinuousClock()) {
            var count = 0
            for await report in reports {
                switch report {
                case .willRetry(_, let after, let reason):
                    console.out("   retry    \(reason); next try in \(Self.milliseconds(after))")
                case .delivered(_, let events, _):
                    count += events
                    if count >= expected { return true }
                default:
                    break
                }
            }
            return false
        } ?? false
        guard delivered, await waitForIngest(first + expected, step: "outage") == nil else {
            return "outage: the \(expected) events were not delivered within \(timeout) after the ingest recovered"
        }
        let statuses = ingest.summary.byStatus[503] ?? 0
        console.out("   the ingest recovered: \(expected) events accepted after \(statuses) answers of 503, in \(Self.seconds(ContinuousClock.now - start)):")
        showArrivals(limit: 3)
        console.out("   the outbox afterwards:")
        showOutbox()
        console.out("")
        return nil
    }

    /// The outbox as `sdl outbox` reads it (read-only, without the lock), one line per folder.
    private func showOutbox() {
        let report = OutboxInspector.inspect(root: folder.path)
        for area in report.areas {
            let journals = area.journals.reduce(0) { $0 + $1.events }
            let batched = area.batches.reduce(0) { $0 + $1.events }
            console.out("     areas/\(area.name)/  journal: \(journals) events   batches/: \(area.batches.count) files, \(batched) events   set-aside/: \(area.setAside.count) files")
        }
    }

    /// Prints the first `limit` events that arrived since the last call, and how many more.
    private mutating func showArrivals(limit: Int) {
        let events = Array(ingest.receivedEvents.dropFirst(shown))
        for event in events.prefix(limit) { console.out("   ← " + EventLine.text(event)) }
        if events.count > limit { console.out("   ← … and \(events.count - limit) more document_saved") }
        shown += events.count
    }

    /// `12 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        "\(duration.wholeMilliseconds) ms"
    }
}
