import Dispatch
import Foundation
import SimpleDataLogs

/// One saturation at a time. Two at once would deadlock the whole run: with a pool of two
/// threads, each could take one and wait forever for a second that the other holds.
private let saturationGate = NSLock()

/// Runs `check` on a thread of its own while every thread of the cooperative pool is blocked,
/// then frees the pool and returns what `check` returned. For the tests that prove the SDK's
/// tracking, journaling and uploads need no pool thread.
///
/// All waiting happens on that thread, never on the pool, and each wait is bounded: when the
/// pool's threads cannot all be taken within ``testWaitLimit`` (another test holds one and
/// needs the pool to let go), the pool is freed and this throws ``TimedOut`` without running
/// `check`.
func whileCooperativePoolIsBlocked<T: Sendable>(_ check: @escaping @Sendable () -> T) async throws -> T {
    let poolWidth = ProcessInfo.processInfo.activeProcessorCount
    let limit = testWaitLimit
    return try await withCheckedThrowingContinuation { (result: CheckedContinuation<T, any Error>) in
        Thread {
            guard saturationGate.lock(before: Date(timeIntervalSinceNow: Double(limit.components.seconds))) else {
                return result.resume(throwing: TimedOut(what: "another test to free the cooperative pool it blocks", limit: limit))
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
        if saturationGate.lock(before: Date(timeIntervalSinceNow: Double(limit.components.seconds))) {
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
        throw TimedOut(what: "another test to free the cooperative pool it blocks", limit: limit)
    }
    defer { finished.signal() }
    return try await body()
}
