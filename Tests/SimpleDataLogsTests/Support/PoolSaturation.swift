import Dispatch
import Foundation
import Testing
import SimpleDataLogs

/// One saturation at a time. Two at once would deadlock the whole run: with a pool of two
/// threads, each could take one and wait forever for a second that the other holds.
private let saturationGate = NSLock()

/// How long a test waits to take ``saturationGate``. The gate is a queue: a test waits for every
/// holder ahead of it (the saturations and the real-time tests, each holding it for seconds, ten
/// times that under ThreadSanitizer), so its wait is longer than any single wait
/// (``testWaitLimit``) and still well inside the 10-minute stuck-test limit.
let gateWaitLimit: Duration = .seconds(300)

/// Runs `check` on a thread of its own while every thread of the cooperative pool is blocked,
/// then frees the pool and returns what `check` returned. For the tests that prove the SDK's
/// tracking, journaling and uploads need no pool thread.
///
/// All waiting happens on that thread, never on the pool, and each wait is bounded: when the
/// pool's threads cannot all be taken within ``testWaitLimit`` (another test holds one and
/// needs the pool to let go), the pool is freed and this throws ``TimedOut`` without running
/// `check`. `gateLimit` bounds the wait for the saturation gate alone (see
/// ``NoPoolSaturationTrait``), which another saturation or a real-time test may hold.
func whileCooperativePoolIsBlocked<T: Sendable>(
    gateLimit: Duration = gateWaitLimit, _ check: @escaping @Sendable () -> T
) async throws -> T {
    let poolWidth = ProcessInfo.processInfo.activeProcessorCount
    let limit = testWaitLimit
    return try await withCheckedThrowingContinuation { (result: CheckedContinuation<T, any Error>) in
        Thread {
            guard saturationGate.lock(before: Date(timeIntervalSinceNow: gateLimit.secondsAsDouble)) else {
                return result.resume(throwing: TimedOut(what: "another test to free the cooperative pool it blocks", limit: gateLimit))
            }
            defer { saturationGate.unlock() }
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            for _ in 0..<poolWidth {
                Task.detached {
                    entered.signal()
                    release.wait() // Deliberately blocks a pool thread: this is the test's load.
                }
            }
            let deadline = DispatchTime.after(limit)
            let allEntered = (0..<poolWidth).allSatisfy { _ in entered.wait(timeout: deadline) == .success }
            guard allEntered else {
                // Tasks that enter later pass straight through.
                for _ in 0..<poolWidth { release.signal() }
                return result.resume(throwing: TimedOut(what: "all \(poolWidth) threads of the cooperative pool to be free to block", limit: limit))
            }
            let value = check()
            for _ in 0..<poolWidth { release.signal() }
            result.resume(returning: value)
        }.start()
    }
}

/// Runs `body` while no other test blocks the cooperative pool on purpose.
///
/// For the few tests that bound real time spent behind a timer (shutdown's limit against a slow
/// middleware step): while ``whileCooperativePoolIsBlocked(_:)`` holds the pool, a timer cannot
/// fire, and such a test would measure the saturation instead of the SDK (a 1 s limit read 8.5 s
/// in a full parallel run, 1.04 s alone). The saturation gate is held for the body's duration by
/// a thread of its own (an `NSLock` is released by the thread that took it); every wait bounded.
func whileNoPoolSaturation<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    let limit = testWaitLimit
    let taken = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let holder = Locked(false)
    Thread {
        if saturationGate.lock(before: Date(timeIntervalSinceNow: gateWaitLimit.secondsAsDouble)) {
            holder.withLock { $0 = true }
            taken.signal()
            // Released when the body ends; bounded so that a lost signal cannot hold the gate.
            _ = finished.wait(timeout: .after(limit))
            saturationGate.unlock()
        } else {
            taken.signal()
        }
    }.start()
    try await onOwnThread { taken.wait() }
    guard holder.withLock({ $0 }) else {
        throw TimedOut(what: "another test to free the cooperative pool it blocks", limit: gateWaitLimit)
    }
    defer { finished.signal() }
    return try await body()
}

/// Runs each test it marks (every test of a suite it marks) inside
/// ``whileNoPoolSaturation(_:)``, so no test tagged ``Testing/Tag/poolSaturation`` runs meanwhile.
///
/// For the tests whose assertions bound real time (a hold, a shutdown, a cancelled request, a
/// launch ratio): while the pool is blocked on purpose, their tasks and the SDK's timers wait
/// for it, and the bound would measure the saturation instead of the SDK. Saturations already
/// exclude each other through the same gate. Not for a test that calls
/// ``whileNoPoolSaturation(_:)`` itself: the gate is not reentrant, and the inner call would
/// wait out ``testWaitLimit`` and fail.
struct NoPoolSaturationTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Once per test case: a suite's scope would hold the gate for all of its tests at once.
        !test.isSuite && testCase != nil ? self : nil
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await whileNoPoolSaturation { try await function() }
    }
}

extension Trait where Self == NoPoolSaturationTrait {
    /// The test runs while no other test blocks the cooperative pool on purpose
    /// (``NoPoolSaturationTrait``).
    static var noPoolSaturation: Self { NoPoolSaturationTrait() }
}

extension Duration {
    /// The duration in seconds, fractions included (`components.seconds` drops them).
    var secondsAsDouble: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
