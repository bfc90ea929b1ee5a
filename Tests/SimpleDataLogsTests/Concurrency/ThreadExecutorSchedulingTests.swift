#if os(Linux)
import Glibc
import Testing
@testable import SimpleDataLogs

/// The SDK's own threads are `SCHED_BATCH` on Linux, so that waking one never preempts the app's
/// thread that woke it (``ThreadExecutor/neverPreemptOnWakeUp()``), and the app's threads keep
/// their class.
@Suite("Concurrency: the SDK's threads never preempt the app on a wake-up")
struct ThreadExecutorSchedulingTests {
    /// An actor that runs on a thread of the SDK's own.
    actor OnOwnThread {
        let executor: ThreadExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        init(_ executor: ThreadExecutor) { self.executor = executor }

        /// The scheduling class of the thread this runs on.
        func policy() -> Int32 { sched_getscheduler(0) }
    }

    @Test("a ThreadExecutor's thread is SCHED_BATCH (3); the caller's thread is left as it was")
    func batchClass() async {
        let executor = ThreadExecutor(name: "test.sched")
        defer { executor.stop() }
        let callerBefore = sched_getscheduler(0)
        #expect(await OnOwnThread(executor).policy() == 3)
        #expect(sched_getscheduler(0) == callerBefore, "only the SDK's thread changes class")
        #expect(callerBefore != 3)
    }
}
#endif
