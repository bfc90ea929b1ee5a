import Dispatch
import Testing
@testable import SimpleDataLogs

@Suite("Concurrency: waiters for a count", .stuckTestLimit)
struct WaitersTests {
    @Test("a count takes out exactly the waiters it reaches, tasks and threads alike, each once")
    func reached() async {
        var waiters = Waiters()
        let (early, late) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        waiters.add(thread: early, for: 5)
        waiters.add(thread: late, for: 50)
        #expect(waiters.takeReached(4).count == 0)
        let first = waiters.takeReached(5)
        #expect(first.count == 1)
        first.resume()
        #expect(early.wait(timeout: .now()) == .success && late.wait(timeout: .now()) == .timedOut)
        #expect(waiters.takeReached(10).count == 0, "taken once")
        #expect(waiters.takeReached(50).count == 1 && waiters.isEmpty)
    }

    @Test("a task resumes when the count reaches its target")
    func task() async {
        let waiters = Locked(Waiters())
        async let resumed: Void = withCheckedContinuation { continuation in
            waiters.withLock { $0.add(task: continuation, for: 3) }
        }
        // The task registers itself; keep moving the count until it has.
        var count = 0
        while waiters.withLock({ $0.isEmpty }) { await Task.yield() }
        for next in 1...3 {
            count = next
            waiters.withLock { $0.takeReached(count) }.resume()
        }
        await resumed
        #expect(count == 3 && waiters.withLock { $0.isEmpty })
    }
}
