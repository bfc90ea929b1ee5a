import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 7: bytes per event on disk (journal and batch files, framing and batch headers
/// included) and on the wire (request bodies, uncompressed and gzipped, default batches of 50).
///
/// Method: 1,000 events into a client with uploads off, then the area's files are summed (the
/// `lock` file excluded); 1,000 events each through a client with gzip off and on to
/// `LocalIngest`, which records each body's size on the wire.

struct BytesBenchmark {
    let options: Options
    let report: Report
    private static let events = 1_000

    func run() async {
        guard let folder = try? TemporaryFolder("bytes") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }

        let payload = BenchmarkSupport.payload(
            name: BenchEvent.name, properties: BenchEvent.properties(123_456), id: UUID(), timestamp: 1_760_000_000_000
        )
        report.add(Figure("bytes.payload", Double(payload.count), unit: "B/event", note: "one event's JSON, as journaled and sent"))

        // On disk.
        let diskFolder = folder.url.appendingPathComponent("disk")
        let client = BenchEvent.makeClient(folder: diskFolder)
        BenchEvent.trackPaced(client, first: 0, count: Self.events)
        _ = client.blockBenchmarkThreadUntilJournaled(atLeast: Self.events, timeout: .seconds(30))
        let stored = TemporaryFolder.files(under: diskFolder).filter { !$0.path.hasSuffix("/lock") }
        let onDisk = Double(stored.reduce(0) { $0 + $1.size }) / Double(Self.events)
        await client.shutdown(timeLimit: .seconds(1))
        report.add(Figure(
            "bytes.disk", onDisk, unit: "B/event", baseline: 736, target: "<= 350 B", met: onDisk <= 350,
            note: "\(stored.count) files for \(Self.events) events, batches of 50; baseline = peer SDK (736)"
        ))

        // On the wire.
        for gzip in [false, true] {
            guard let (body, withHeaders) = await wire(folder: folder.url.appendingPathComponent("wire-\(gzip)"), gzip: gzip) else { continue }
            let name = gzip ? "bytes.wire_gzip" : "bytes.wire"
            report.add(Figure(
                name, body, unit: "B/event", baseline: gzip ? nil : 738, target: gzip ? "<= 80 B" : nil, met: gzip ? body <= 80 : nil,
                note: "request body only, batches of 50\(gzip ? "" : "; baseline = peer SDK uncompressed (738)")"
            ))
            report.add(Figure(name + ".with_headers", withHeaders, unit: "B/event", note: "body plus request line and header fields"))
        }
    }

    private func wire(folder: URL, gzip: Bool) async -> (Double, Double)? {
        let ingest: LocalIngest
        do { ingest = try LocalIngest() } catch { report.broken("LocalIngest: \(error)"); return nil }
        defer { ingest.stop() }
        let client = BenchEvent.makeClient(folder: folder, endpoint: ingest.endpoint, gzip: gzip)
        BenchEvent.trackPaced(client, first: 0, count: Self.events)
        await client.flush()
        let arrived = await ingest.waitForEvents(count: Self.events, timeout: .seconds(30))
        await client.shutdown(timeLimit: .seconds(1))
        guard arrived else {
            report.broken("bytes: only \(ingest.summary.accepted) of \(Self.events) events reached the ingest")
            return nil
        }
        let requests = ingest.requests.filter { $0.status == 202 }
        let bodies = requests.reduce(0) { $0 + $1.bodyByteCount }
        let headers = requests.reduce(0) { total, request in
            total + "POST /v1/events HTTP/1.1\r\n".utf8.count + 2
                + request.headers.reduce(0) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count + 2 }
        }
        return (Double(bodies) / Double(Self.events), Double(bodies + headers) / Double(Self.events))
    }
}
