import Foundation
@testable import SDLCommands
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

/// `sdl send --timeout N` bounds the whole command, launch included (issue 23, item 7): on a
/// storage folder with a large backlog the SDK's recovery ran past the limit, and `shutdown`
/// waited for it (`--timeout 5` returned after 25 s). When the limit passes first, the command
/// says so: exit 69, the event was never written, never 75 "safe on disk" for an event that is
/// not. (An event written in time goes the usual way; on a fast machine that may be 75 here.)
///
/// The bound itself is asserted where it is decided, deterministically: ``FirstOf`` returns at
/// its limit while the work it watches never ends (the command's work is the SDK's recovery,
/// which no limit of the SDK's own interrupts). The end-to-end test checks what the user sees on
/// a real folder; its time bound only guards against a hang, because on a loaded machine the
/// old behaviour (recovery of 40,000 files, 3.7 s here) and the new one cannot be told apart by
/// wall-clock time alone (a first version bounded it at 2.5 s, and a parallel run took 4.06 s).
@Suite("Hardening: sdl send --timeout bounds launch too", .stuckTestLimit, .skippedInFastLoop)
struct SendTimeoutTests {
    static let key = "sdl_sec_0123456789abcdef0123456789abcdef"

    @Test("FirstOf: the limit wins over work that never ends, and the work is left running, not awaited")
    func limitWinsOverEndlessWork() async throws {
        let release = ThreadGate(isOpen: false)
        defer { release.open() }
        // Work that ends only when the test lets it: the SDK's recovery, from the command's side.
        let work = Task<Int32, Never> {
            _ = try? await onOwnThread { release.blockWhileClosed() }
            return 0
        }
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await withTimeLimit(.seconds(30), waitingFor: "FirstOf past a never-ending task") {
            await FirstOf.value(of: work, within: .milliseconds(100))
        }
        #expect(result == nil, "the limit passed first")
        #expect(started.duration(to: clock.now) >= .milliseconds(90), "not before the limit (10 ms clock tolerance)")
        release.open()
        #expect(await work.value == 0, "the work went on by itself")
    }

    @Test("FirstOf: work that ends first gives its status; the limit's sleeper is dropped")
    func workWinsWhenItEnds() async throws {
        let work = Task<Int32, Never> { 75 }
        let result = try await withTimeLimit(.seconds(30), waitingFor: "FirstOf with a finished task") {
            await FirstOf.value(of: work, within: .seconds(600))
        }
        #expect(result == 75)
    }

    @Test("a folder whose recovery outlasts --timeout: an honest exit code and message, never a hang", .tags(.burst))
    func boundedLaunch() async throws {
        let folder = TemporaryDirectory("sdl-send-timeout")
        defer { folder.remove() }
        // Enough files that recovery takes seconds in a debug build (each is read and adopted).
        try LaunchScaleTests.leftOutbox(files: 40_000, in: folder)
        let closed = try closedLoopbackPort()
        let start = ContinuousClock.now
        let (status, console) = await sdl(
            "send", "nightly_backup", "--endpoint", "http://127.0.0.1:\(closed)",
            "--key", Self.key, "--storage", folder.path, "--timeout", "0.2"
        )
        let elapsed = start.duration(to: .now)
        // A hang guard only (see the suite's note): the command's limits are 0.2 s and half a
        // second of grace.
        #expect(elapsed < .seconds(20) * sanitizerSlack, "took \(elapsed): \(console.errors)")
        switch status {
        case ExitCode.notWritten:
            #expect(console.errors.contains("was NOT written") && !console.errors.contains("safe on disk"), "\(console.errors)")
        case ExitCode.tryAgainLater:
            #expect(console.errors.contains("safe on disk"), "\(console.errors)")
        default:
            Issue.record("exit \(status): \(console.errors)")
        }
    }
}
