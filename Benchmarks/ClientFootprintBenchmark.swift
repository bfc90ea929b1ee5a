#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs

/// Figure 9: what one configured client costs a process, for the per-client threads decision
/// (DESIGN.md, "Threads"): threads and resident memory per client with 1 and 16 clients, the
/// time to configure one, and the threads left after every client has shut down (0 expected: each
/// executor stops with its pipeline). In a fresh child process, so nothing else runs beside it.
struct ClientFootprintBenchmark {
    let options: Options
    let report: Report

    func run() async {
        guard let folder = try? TemporaryFolder("clients") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        for count in [1, 16] {
            guard let result = ChildProcess.spawn(["clients", folder.path + "/\(count)", String(count)], report: report),
                  let threads = result["threadsPerClient"], let memory = result["residentPerClient"],
                  let configure = result["configureMicroseconds"], let left = result["threadsLeft"] else { continue }
            report.add(Figure(
                "clients.\(count).threads_per_client", threads, unit: "threads",
                note: String(format: "%d clients in one process, each with 100 events journaled; the process gained %.1f threads per client in all", count, result["processThreadsPerClient"] ?? 0)
            ))
            report.add(Figure("clients.\(count).resident_per_client", memory / 1_000, unit: "KB"))
            report.add(Figure("clients.\(count).configure", configure, unit: "µs", note: "configure() of one client, median"))
            report.add(Figure(
                "clients.\(count).threads_left_after_shutdown", left, unit: "threads", target: "0", met: left == 0,
                note: "every executor stops with its pipeline"
            ))
        }
    }

    /// The child: `clients <folder> <count>`. Configures `count` clients (uploads off), journals
    /// 100 events in each, measures, shuts them all down, and counts the threads left.
    static func child(_ arguments: [String]) async -> Int32 {
        guard arguments.count == 2, let count = Int(arguments[1]), count > 0 else { return 2 }
        let idle = ChildProcess.settle()
        let idleThreads = threadCount()
        var clients: [SimpleDataLogsClient] = []
        var configureTimes: [Double] = []
        for index in 0..<count {
            let start = Measure.now()
            clients.append(BenchEvent.makeClient(folder: URL(fileURLWithPath: arguments[0] + "/\(index)")))
            configureTimes.append(Measure.seconds(start, Measure.now()) * 1_000_000)
        }
        for client in clients {
            for seq in 0..<100 { client.track(BenchEvent.name, properties: BenchEvent.properties(seq)) }
            _ = client.blockBenchmarkThreadUntilJournaled(atLeast: 100, timeout: .seconds(60))
        }
        let busyThreads = threadCount()
        let sdkThreads = sdkThreadCount()
        let resident = ProcessMemory.resident
        for client in clients { await client.shutdown(timeLimit: .zero) }
        clients.removeAll()
        // An executor's thread exits just after its last job; give them a moment.
        Measure.sleep(microseconds: 200_000)
        // The SDK's own threads only: libdispatch keeps a few worker threads of its pool alive
        // after use (measured: 1 or 2, named after its queues), whoever used them.
        let left = sdkThreadCount()
        configureTimes.sort()
        writeStandardOutput(
            "{\"threadsPerClient\":\(Double(sdkThreads) / Double(count)),\"processThreadsPerClient\":\(Double(busyThreads - idleThreads) / Double(count)),"
                + "\"residentPerClient\":\(Double(resident - idle) / Double(count)),"
                + "\"configureMicroseconds\":\(configureTimes[configureTimes.count / 2]),\"threadsLeft\":\(left)}\n"
        )
        return 0
    }

    /// The threads the SDK started (named `sdl.…`).
    static func sdkThreadCount() -> Int {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return ids.filter { id in
            ((try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? "").hasPrefix("sdl.")
        }.count
    }

    /// The process's thread count, from `/proc/self/status`.
    static func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return 0 }
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }
}
