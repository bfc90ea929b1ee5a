/// The command line: `--quick`, `--only <benchmark>[,<benchmark>…]`, and `--child …` for the
/// benchmarks that need a process of their own.
struct Options: Sendable {
    static let benchmarks = ["track", "journal", "loss", "e2e", "recovery", "memory", "bytes", "burst", "clients", "middleware", "intakelog", "configure", "launch", "profile"]

    var quick = false
    var only: Set<String>?
    /// `--child <role> <args…>`: this process is a helper started by a benchmark.
    var child: [String]?
    /// `--calls N` overrides the number of `track()` calls (for profiling runs).
    var calls: Int?

    init(arguments: [String]) throws(OptionsError) {
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--quick":
                quick = true
            case "--only":
                index += 1
                guard index < arguments.count else { throw OptionsError(message: "--only needs a benchmark name") }
                let names = Set(arguments[index].split(separator: ",").map(String.init))
                let unknown = names.subtracting(Self.benchmarks)
                guard unknown.isEmpty else {
                    throw OptionsError(message: "unknown benchmark \(unknown.sorted()); known: \(Self.benchmarks.joined(separator: ", "))")
                }
                only = names
            case "--calls":
                index += 1
                guard index < arguments.count, let calls = Int(arguments[index]) else { throw OptionsError(message: "--calls needs a number") }
                self.calls = calls
            case "--child":
                child = Array(arguments[(index + 1)...])
                return
            case "--help", "-h":
                throw OptionsError(message: "")
            default:
                throw OptionsError(message: "unknown argument \(argument)")
            }
            index += 1
        }
    }

    /// Whether `name` runs: every benchmark by default, but `profile` (a callgrind target, not a
    /// measurement) only when named.
    func runs(_ name: String) -> Bool { only?.contains(name) ?? (name != "profile") }
}

struct OptionsError: Error {
    var message: String
    static let usage = """
        usage: SimpleDataLogsBenchmarks [--quick] [--only track|journal|loss|e2e|recovery|memory|bytes|burst|clients|middleware|intakelog|configure|launch|profile[,…]] [--calls N]
          --quick   a short run (CI): proves the benchmarks build and run; judges nothing
          --only    run only the named benchmarks (for example under valgrind --tool=callgrind)
          --calls   the number of track() calls in the track benchmark (default 1,000,000; 50,000 with --quick),
                    or of events in the profile run (default 100,000),
                    or of batch files in the launch run (default 10,000 and 100,000)
        """
}
