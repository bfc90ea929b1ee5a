import Dispatch
import Foundation

/// Runs `check` on a thread of its own while every thread of the cooperative pool is blocked,
/// then frees the pool and returns what `check` returned. For the tests that prove the SDK's
/// tracking, journaling and uploads need no pool thread.
func whileCooperativePoolIsBlocked<T: Sendable>(_ check: @escaping @Sendable () -> T) async -> T {
    let poolWidth = ProcessInfo.processInfo.activeProcessorCount
    return await withCheckedContinuation { (result: CheckedContinuation<T, Never>) in
        Thread {
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            for _ in 0..<poolWidth {
                Task.detached {
                    entered.signal()
                    release.wait() // Deliberately blocks a pool thread: this is the test's load.
                }
            }
            for _ in 0..<poolWidth { entered.wait() }
            let value = check()
            for _ in 0..<poolWidth { release.signal() }
            result.resume(returning: value)
        }.start()
    }
}
