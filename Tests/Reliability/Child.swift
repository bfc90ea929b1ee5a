#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SimpleDataLogs

/// The child: tracks `seq` S, S+1, … at a steady rate into a client on the shared folder until
/// the driver kills it with `SIGKILL`.
///
/// What it prints, each line written with one `write(2)` before the program goes on:
/// - `log <µs>` (how long `configure` took: it makes the intake log on the caller's thread), or
///   `nolog`, then `ready`: it tracks at once, with nothing waiting for the outbox, so a third of
///   the kills land while launch is still recovering, and none may cost a returned call;
/// - `t <seq>` *before* the `track` call of that seq, so the driver never reuses a seq the child
///   may have tracked (at most the last announced seq of a killed child was not tracked yet);
/// - `w <seq>`: every seq up to this one is in the journal (written with `write(2)`, so it
///   survives `SIGKILL`);
/// - `anomaly …` if the watermark can no longer be mapped to seqs (an event skipped or dropped
///   before the journal), after which it prints no more watermarks.
///
/// Runs on the main thread, which is not one of the cooperative pool's: the pacing sleeps
/// block only this thread. The SDK's stages and uploader run on threads of their own.
enum Child {
    static func run(_ options: ChildOptions) -> Never {
        var tuning = ClientTuning()
        // Backoff delays a hundredth of the product's, so a child sends soon after the ingest
        // comes back (its life is a few hundred milliseconds).
        tuning.backoffScale = 0.01
        tuning.intakeLog = options.intakeLog
        let client = SimpleDataLogsClient(
            clock: ContinuousClock(), wallClock: SystemWallClock(), logSink: StandardErrorLogSink(),
            tuning: tuning, environment: [:]
        )
        let configuring = monotonicNanoseconds()
        client.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_reliability000", endpoint: options.endpoint,
            sessionMode: .inactivityTimeout(minutes: 30), storageDirectory: URL(fileURLWithPath: options.folder),
            // A server's batches (`Limits.server`: 5,000 files of up to 1,000 events); an app's 50.
            batchSize: options.server ? 1_000 : 50, requestTimeout: .seconds(5), limits: options.server ? .server : .standard
        ))
        // `configure` makes the intake log before it returns: from here on every returned call is
        // in it (the intake may hold calls until the earlier runs' replay is queued in front, but
        // they are in the log). What that costs the caller's thread is reported.
        let configured = monotonicNanoseconds()
        say(client.hasIntakeLog ? "log \((configured - configuring) / 1_000)" : "nolog")
        say("ready")

        if options.threads > 1 { runThreads(options, client: client) }
        let interval = 1_000_000_000 / UInt64(options.rate)
        let start = monotonicNanoseconds()
        // How often the watermark is read: about every 4 ms.
        let pollEvery = max(1, options.rate / 250)
        var calls = 0
        var reported = options.startSeq - 1
        var evicted = 0
        var mapping = true
        var seq = options.startSeq
        while true {
            let due = start + UInt64(calls) * interval
            let now = monotonicNanoseconds()
            if due > now { sleepNanoseconds(due - now) }
            say("t \(seq)")
            client.track("reliability", properties: ["seq": .int(seq)])
            calls += 1
            seq += 1
            if mapping && calls % pollEvery == 0 {
                // Read the watermark first, then the counters: events the SDK made itself
                // (session_start, the session_end of a dead child's session) are journaled too
                // and counted in `tracked`, so `written - (tracked - calls)` is a lower bound
                // of this child's journaled events, which the journal writes in intake order.
                let written = client.journalWatermark.eventsWritten
                let counters = client.counters
                // Batches the outbox's caps dropped (counted, one line per episode): the driver
                // tells these counted drops from losses.
                if counters.evictedByCaps > evicted {
                    evicted = counters.evictedByCaps
                    say("c \(evicted)")
                }
                if counters.skippedBacklog + counters.invalid + counters.droppedTooLarge + counters.droppedBeforeConfigure > 0 {
                    say("anomaly events dropped before the journal: \(counters)")
                    mapping = false
                    continue
                }
                // Events replayed from a dead child's intake log are journaled first, in
                // front of this child's: they are not this child's.
                let generated = counters.tracked - calls + client.replayedFromIntakeLog
                let journaledLive = written - generated
                if journaledLive > 0 {
                    let mark = options.startSeq + Int64(journaledLive) - 1
                    if mark > reported {
                        reported = mark
                        say("w \(mark)")
                    }
                }
            }
        }
    }

    /// `--threads T`: thread `i` (the main thread is 0) tracks seqs `start + i`, `+ T`, … at
    /// `rate / T` a second each, announcing each seq before its call, so a kill lands inside
    /// `track()` on several threads at once. No watermark is reported: the journal's order
    /// interleaves the threads, and with the intake log every returned call must come back
    /// anyway. The main thread reports the caps' drops and any event dropped before the journal.
    static func runThreads(_ options: ChildOptions, client: SimpleDataLogsClient) -> Never {
        let threads = options.threads
        let interval = UInt64(threads) * 1_000_000_000 / UInt64(options.rate)
        let start = monotonicNanoseconds()
        // Thread 0 reads the counters about every 4 ms, as a single-threaded child does.
        let pollEvery = UInt64(max(1, options.rate / threads / 250))
        @Sendable func lane(_ index: Int) {
            var seq = options.startSeq + Int64(index)
            var calls: UInt64 = 0
            var evicted = 0
            var dropped = false
            while true {
                let due = start + calls * interval
                let now = monotonicNanoseconds()
                if due > now { sleepNanoseconds(due - now) }
                say("t \(seq)")
                client.track("reliability", properties: ["seq": .int(seq)])
                calls += 1
                seq += Int64(threads)
                guard index == 0, calls % pollEvery == 0 else { continue }
                let counters = client.counters
                if counters.evictedByCaps > evicted {
                    evicted = counters.evictedByCaps
                    say("c \(evicted)")
                }
                if !dropped, counters.skippedBacklog + counters.invalid + counters.droppedTooLarge + counters.droppedBeforeConfigure > 0 {
                    dropped = true
                    say("anomaly events dropped before the journal: \(counters)")
                }
            }
        }
        for index in 1..<threads { Thread.detachNewThread { lane(index) } }
        lane(0)
        fatalError("unreachable")
    }

    /// Writes one line to standard output with `write(2)`: nothing is buffered in the process,
    /// so a line written before a `SIGKILL` reaches the driver.
    static func say(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    exit(74) // the driver is gone
                }
                offset += written
            }
        }
    }
}

/// Nanoseconds on the monotonic clock.
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Sleeps the calling thread (never call it from a task).
func sleepNanoseconds(_ nanoseconds: UInt64) {
    var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
