#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// The roles this executable plays when a benchmark starts it as a child (`--child <role> …`):
/// a fresh process for memory figures (peak RSS is per process), and a process that leaves an
/// outbox behind the way a crash would (it ends with `_exit`, no shutdown).
enum ChildProcess {
    /// Runs the role; returns the exit code. Results go to standard output as one JSON object.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let role = arguments.first else { return 2 }
        let rest = Array(arguments.dropFirst())
        switch role {
        case "prepare-outbox":
            // prepare-outbox <folder> <events> [port]: journal the events with uploads off, then
            // vanish. The port names the ingest the next client sends to: an area records its
            // endpoint, and only a client with the same one recovers it.
            guard rest.count == 2 || rest.count == 3, let count = Int(rest[1]) else { return 2 }
            let client = BenchEvent.newClient(uploads: false)
            client.configure(BenchEvent.configuration(
                folder: URL(fileURLWithPath: rest[0]), endpoint: rest.count == 3 ? URL(string: "http://127.0.0.1:\(rest[2])") : nil
            ))
            BenchEvent.trackPaced(client, first: 0, count: count)
            let done = client.blockBenchmarkThreadUntilJournaled(atLeast: count, timeout: .seconds(60))
            writeStandardOutput("{\"journaled\":\(client.journalWatermark.eventsWritten)}\n")
            _exit(done ? 0 : 1)
        case "memory-offer":
            // memory-offer <folder> <events> <port>: offer the events flat out to a dead ingest.
            guard rest.count == 3, let count = Int(rest[1]), let port = Int(rest[2]) else { return 2 }
            let idle = settle()
            let client = BenchEvent.makeClient(folder: URL(fileURLWithPath: rest[0]), endpoint: URL(string: "http://127.0.0.1:\(port)")!)
            let start = Measure.now()
            for seq in 0..<count {
                client.track(BenchEvent.name, properties: BenchEvent.properties(seq))
            }
            let offerSeconds = Measure.seconds(start, Measure.now())
            // Let the journal catch up and the uploader fail a few times.
            Measure.sleep(microseconds: 1_500_000)
            let counters = client.counters
            writeStandardOutput(
                "{\"idle\":\(idle),\"peak\":\(ProcessMemory.peakResident),\"final\":\(ProcessMemory.resident),"
                    + "\"tracked\":\(counters.tracked),\"skipped\":\(counters.skippedBacklog),\"evicted\":\(counters.evictedByCaps),"
                    + "\"onDisk\":\(counters.pendingOnDisk),\"offerSeconds\":\(offerSeconds)}\n"
            )
            _exit(0)
        case "memory-waiting":
            // memory-waiting <folder> <port>: start on a full outbox with the ingest down.
            guard rest.count == 2, let port = Int(rest[1]) else { return 2 }
            let idle = settle()
            let client = BenchEvent.makeClient(folder: URL(fileURLWithPath: rest[0]), endpoint: URL(string: "http://127.0.0.1:\(port)")!)
            Measure.sleep(microseconds: 2_000_000)
            let counters = client.counters
            writeStandardOutput(
                "{\"idle\":\(idle),\"peak\":\(ProcessMemory.peakResident),\"final\":\(ProcessMemory.resident),"
                    + "\"recovered\":\(counters.recovered),\"onDisk\":\(counters.pendingOnDisk)}\n"
            )
            _exit(0)
        case "server-burst":
            return await ServerBurstBenchmark.child(rest, idle: settle())
        case "clients":
            return await ClientFootprintBenchmark.child(rest)
        default:
            FileHandle.standardError.write(Data("unknown child role \(role)\n".utf8))
            return 2
        }
    }

    /// The idle process: Foundation and the networking library loaded, nothing of the SDK started.
    /// Returns the resident set, and resets the peak to it.
    static func settle() -> Int {
        _ = URLSessionTransport()
        _ = try? JSONSerialization.data(withJSONObject: ["warm": 1])
        let idle = ProcessMemory.resident
        ProcessMemory.resetPeak()
        return idle
    }

    /// Starts this executable with `--child` and `arguments`; returns its standard output's
    /// JSON object, or `nil` (with the reason on standard error).
    static func spawn(_ arguments: [String], report: Report) -> [String: Double]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--child"] + arguments
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch {
            report.broken("could not start a child (\(arguments.first ?? "")): \(error)")
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            report.broken("child \(arguments.first ?? "") ended with \(process.terminationStatus): \(String(decoding: data, as: UTF8.self))")
            return nil
        }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }
}
