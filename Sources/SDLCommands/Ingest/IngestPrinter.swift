import SimpleDataLogs
import SimpleDataLogsTesting

/// Prints what the local ingest has done since the last call: each event counted, on one line
/// (or as JSON), each rejected event with its reason, and each request it refused.
struct IngestPrinter {
    let ingest: LocalIngest
    let console: any Console
    let json: Bool
    private var eventsShown = 0
    private var requestsShown = 0

    init(ingest: LocalIngest, console: any Console, json: Bool) {
        self.ingest = ingest
        self.console = console
        self.json = json
    }

    mutating func printNew() {
        let events = ingest.receivedEvents
        for event in events.dropFirst(eventsShown) {
            console.out(json ? EventLine.json(event) : EventLine.text(event, showDate: true))
        }
        eventsShown = events.count
        let requests = ingest.requests
        for request in requests.dropFirst(requestsShown) { note(request) }
        requestsShown = requests.count
    }

    /// Rejections, duplicates and refusals go to standard error, so `--json` output stays pure.
    private func note(_ request: RecordedRequest) {
        let batch = request.batchID.map { " batch \($0.prefix(8))" } ?? ""
        if request.status == 202 {
            for rejection in request.rejections {
                console.err("rejected event #\(rejection.index) \(rejection.eventID ?? "(no event_id)")\(batch): \(rejection.reason)")
            }
            if request.isReplay {
                console.err("replayed\(batch): already counted, nothing counted again")
            } else if request.duplicates > 0 {
                console.err("\(request.duplicates) duplicate events\(batch): already counted")
            }
            return
        }
        var why = HTTPStatusText.reason(request.status)
        if request.isScripted { why += ", from --fail" }
        if request.status == 401 {
            let key = request.header("Authorization")?.split(separator: " ").last.map { IngestKey.redacted(String($0)) } ?? "none"
            why += ", key \(key)"
        }
        console.err("\(request.method) \(request.path)\(batch) → \(request.status) (\(why))")
    }
}

/// Reason phrases for the statuses the ingest answers.
enum HTTPStatusText {
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "malformed body"
        case 401: return "key not accepted"
        case 404: return "wrong path; the SDK posts to /v1/events"
        case 405: return "only POST"
        case 413: return "body too large"
        case 415: return "not JSON, or an unsupported encoding"
        case 429: return "too many requests"
        case 503: return "unavailable"
        default: return "status \(status)"
        }
    }
}
