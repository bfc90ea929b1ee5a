#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

// The benchmark suite of issue 7. Every figure prints one JSON line on standard output as it is
// measured, then a table. The exit code is 0 unless something is broken (events lost, a server
// that would not start); a slow figure never fails the run.

let options: Options
do {
    options = try Options(arguments: CommandLine.arguments)
} catch {
    if !error.message.isEmpty { FileHandle.standardError.write(Data("error: \(error.message)\n".utf8)) }
    FileHandle.standardError.write(Data((OptionsError.usage + "\n").utf8))
    exit(error.message.isEmpty ? 0 : 2)
}

/// Runs `body` on the cooperative pool and blocks the main thread (which this program owns and
/// nothing else uses) until it ends. Top-level `await` would park the main thread in
/// `dispatch_main`, which valgrind cannot follow; this way `--only X` runs under callgrind.
func runBlocking(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
    let result = ThreadResult<Int32>()
    Task.detached { result.set(await body()) }
    return result.wait()
}

if let child = options.child {
    exit(runBlocking { [child] in await ChildProcess.run(child) })
}

let report = Report()
report.note("SimpleDataLogs benchmarks: \(options.quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, pid \(getpid())")
let suiteStart = Measure.now()

let code = runBlocking { [options, report] in
    if options.runs("track") { await TrackCostBenchmark(options: options, report: report).run() }
    if options.runs("journal") { await JournalThroughputBenchmark(options: options, report: report).run() }
    if options.runs("bytes") { await BytesBenchmark(options: options, report: report).run() }
    if options.runs("e2e") { await EndToEndBenchmark(options: options, report: report).run() }
    if options.runs("loss") { await LossWindowBenchmark(options: options, report: report).run() }
    if options.runs("memory") { await MemoryBenchmark(options: options, report: report).run() }
    if options.runs("recovery") { await RecoveryBenchmark(options: options, report: report).run() }
    if options.runs("burst") { await ServerBurstBenchmark(options: options, report: report).run() }
    if options.runs("clients") { await ClientFootprintBenchmark(options: options, report: report).run() }
    if options.runs("middleware") { await MiddlewareBenchmark(options: options, report: report).run() }
    if options.runs("intakelog") { await IntakeLogBenchmark(options: options, report: report).run() }
    if options.runs("configure") { await ConfigureBenchmark(options: options, report: report).run() }
    if options.runs("launch") { await LaunchBenchmark(options: options, report: report).run() }
    if options.runs("profile") { await PipelineProfileBenchmark(options: options, report: report).run() }

    return report.brokenCount == 0 ? 0 : 1
}
writeStandardOutput("\n" + report.table())
report.note(String(format: "total %.1f s", Measure.seconds(suiteStart, Measure.now())))
exit(code)
