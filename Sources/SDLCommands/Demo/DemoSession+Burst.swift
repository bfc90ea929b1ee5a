import SimpleDataLogs
import SimpleDataLogsTesting

extension DemoSession {
    /// Chapter 3: a burst of thousands, tracked in chunks with `flush()` between, so the SDK
    /// never holds more than its 5,000 events waiting to be written (it would skip the rest).
    mutating func burst() async -> String? {
        let total = options.burstSize
        let chunk = max(1, options.burstChunk)
        console.out("3. A burst of \(Self.grouped(total)) events, \(Self.grouped(chunk)) at a time with flush() between")
        console.out("   (the SDK holds at most 5,000 events waiting to be written and skips the rest, so hot loops pause)")
        let start = ContinuousClock.now
        let first = nextSeq
        var done = 0
        while done < total {
            let count = min(chunk, total - done)
            for index in 0..<count {
                track("search_result_viewed", ["rank": .int(Int64((done + index) % 20 + 1))])
            }
            done += count
            await client.flush()
            if let failure = await waitForIngest(first + done, step: "burst") { return failure }
            let arrived = ingest.summary.accepted - first
            console.out("   burst  \(Self.grouped(arrived)) / \(Self.grouped(total)) accepted by the ingest  (\(ingest.summary.requests) requests so far, skipped \(client.counters.skippedBacklog))")
        }
        shown = ingest.receivedEvents.count
        let elapsed = ContinuousClock.now - start
        console.out("   \(Self.grouped(total)) events in \(Self.seconds(elapsed)), in batches of 50, gzipped, oldest first")
        console.out("")
        return nil
    }

    /// `3,000`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return (number < 0 ? "-" : "") + result
    }

    /// `1.24 s`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        let hundredths = Int(milliseconds % 1_000) / 10
        return "\(milliseconds / 1_000).\(hundredths < 10 ? "0" : "")\(hundredths) s"
    }
}
