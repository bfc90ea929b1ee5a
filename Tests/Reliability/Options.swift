import Foundation

/// The driver's settings, from the command line.
///
///     reliability [--kills N] [--minutes M] [--rate R] [--threads T] [--profile app|server] [--intake-log on|off] [--phases up,down,flapping] [--phase-kills K] [--seed S] [--scale F] [--ci] [--keep] [--inject-faults]
///     reliability child --folder F --endpoint URL --start-seq S --rate R [--threads T] [--profile app|server] [--intake-log on|off]
struct DriverOptions: Sendable {
    /// How many children are killed (at least; `--minutes` can end the loop earlier).
    var kills = 1_000
    /// A time limit for the kill loop, in minutes; `nil` for none.
    var minutes: Double?
    /// Events per second each child tracks.
    var rate = 1_000
    /// Threads each child tracks from at once, sharing the rate (`--threads 8`: kills land inside
    /// `track()` on several threads). Above 1 a child reports no watermark (the journal's order
    /// interleaves the threads), so every returned call is judged by the intake log's promise.
    var threads = 1
    /// `server`: the children use `Limits.server` (a busy server's backlog); `app`: the defaults.
    var profile = "app"
    /// Whether the children keep an intake log (`--intake-log off` measures the window without).
    var intakeLog = true
    /// The ingest's phases, in turn (`--phases up` keeps it up: at 20,000 events/s an ingest that
    /// is down a third of the time fills any outbox's caps, which then drop by design).
    var phases = IngestControl.Phase.allCases
    /// Kills per ingest phase (up, down, flapping, in turn).
    var phaseKills = 10
    /// The seed of the schedule (kill moments, phases' scripts); random when not given.
    var seed: UInt64?
    /// Continuous-integration mode: 100 kills unless told otherwise, shorter phases.
    var ci = false
    /// Keeps the temporary folder even when the run passes.
    var keep = false
    /// Multiplies the number of kills (for sanitizer builds); also read from
    /// `SDL_RELIABILITY_SCALE`.
    var scale = 1.0
    /// The shortest and longest run of a child before its kill, after it said "ready".
    var runMilliseconds = 20...300
    /// The share of kills aimed at a child's launch and recovery (before or just after "ready"),
    /// in percent.
    var earlyKillPercent = 10
    /// Plants one lost event, one seq under a second id and one event left on disk before
    /// counting, to show that each detector fires (the run must then fail).
    var injectFaults = false

    static let usage = """
    usage: reliability [--kills N] [--minutes M] [--rate R] [--threads T] [--profile app|server] [--intake-log on|off] [--phases up,down,flapping] [--phase-kills K] [--seed S] [--scale F] [--ci] [--keep] [--inject-faults]
           reliability child --folder F --endpoint URL --start-seq S --rate R [--threads T] [--profile app|server] [--intake-log on|off]
    """

    /// Parses the driver's arguments (without the program name).
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> DriverOptions {
        var options = DriverOptions()
        var killsGiven = false
        var phaseGiven = false
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--kills":
                guard let kills = Int(try value(flag)), kills > 0 else { throw UsageError(message: "--kills takes a positive number") }
                options.kills = kills
                killsGiven = true
            case "--minutes":
                guard let minutes = Double(try value(flag)), minutes > 0 else { throw UsageError(message: "--minutes takes a positive number") }
                options.minutes = minutes
            case "--rate":
                guard let rate = Int(try value(flag)), (1...50_000).contains(rate) else { throw UsageError(message: "--rate takes 1 to 50000 events/s") }
                options.rate = rate
            case "--threads":
                guard let threads = Int(try value(flag)), (1...64).contains(threads) else { throw UsageError(message: "--threads takes 1 to 64") }
                options.threads = threads
            case "--profile":
                let profile = try value(flag)
                guard profile == "app" || profile == "server" else { throw UsageError(message: "--profile takes app or server") }
                options.profile = profile
            case "--intake-log":
                let setting = try value(flag)
                guard setting == "on" || setting == "off" else { throw UsageError(message: "--intake-log takes on or off") }
                options.intakeLog = setting == "on"
            case "--phases":
                let names = try value(flag).split(separator: ",").map(String.init)
                let phases = names.compactMap(IngestControl.Phase.init(rawValue:))
                guard !phases.isEmpty, phases.count == names.count else { throw UsageError(message: "--phases takes up,down,flapping in any order") }
                options.phases = phases
            case "--phase-kills":
                guard let phase = Int(try value(flag)), phase > 0 else { throw UsageError(message: "--phase-kills takes a positive number") }
                options.phaseKills = phase
                phaseGiven = true
            case "--seed":
                guard let seed = UInt64(try value(flag)) else { throw UsageError(message: "--seed takes an unsigned number") }
                options.seed = seed
            case "--scale":
                guard let scale = Double(try value(flag)), scale > 0 else { throw UsageError(message: "--scale takes a positive number") }
                options.scale = scale
            case "--ci":
                options.ci = true
            case "--keep":
                options.keep = true
            case "--inject-faults":
                options.injectFaults = true
            case "--help", "-h":
                throw UsageError(message: "")
            default:
                throw UsageError(message: "unknown argument \(flag)")
            }
            index += 1
        }
        if options.ci {
            if !killsGiven { options.kills = 100 }
            if !phaseGiven { options.phaseKills = 5 }
        }
        // With only a time limit, the time decides.
        if options.minutes != nil && !killsGiven { options.kills = Int.max / 2 }
        if let text = environment["SDL_RELIABILITY_SCALE"], let scale = Double(text), scale > 0 { options.scale *= scale }
        if options.scale != 1, options.kills < Int.max / 2 {
            options.kills = max(1, Int((Double(options.kills) * options.scale).rounded()))
        }
        return options
    }
}

/// The child's settings, from the command line.
struct ChildOptions: Sendable {
    var folder: String
    var endpoint: URL
    var startSeq: Int64
    var rate: Int
    /// Threads tracking at once (`--threads`); 1 unless told.
    var threads = 1
    /// `--profile server`: the server limits (`Limits.server`); else the app's.
    var server = false
    /// `--intake-log off`: the client runs without it (to compare).
    var intakeLog = true

    /// Parses `--folder F --endpoint URL --start-seq S --rate R [--profile app|server] [--intake-log on|off]`.
    static func parse(_ arguments: [String]) throws(UsageError) -> ChildOptions {
        var values: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let folder = values["--folder"] else { throw UsageError(message: "child: --folder is required") }
        guard let endpointText = values["--endpoint"], let endpoint = URL(string: endpointText) else {
            throw UsageError(message: "child: --endpoint URL is required")
        }
        guard let start = values["--start-seq"].flatMap({ Int64($0) }), start >= 0 else {
            throw UsageError(message: "child: --start-seq is required")
        }
        let rate = values["--rate"].flatMap { Int($0) } ?? 1_000
        guard rate > 0 else { throw UsageError(message: "child: --rate must be positive") }
        var options = ChildOptions(folder: folder, endpoint: endpoint, startSeq: start, rate: rate)
        options.threads = min(64, max(1, values["--threads"].flatMap { Int($0) } ?? 1))
        options.server = values["--profile"] == "server"
        options.intakeLog = values["--intake-log"] != "off"
        return options
    }
}

/// A command line that could not be understood.
struct UsageError: Error, Sendable {
    var message: String
}
