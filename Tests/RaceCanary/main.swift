import Foundation

// A planted, real data race in code shaped like the SDK's lock box: the same `@unchecked
// Sendable` class over mutable state, except that `unguardedIncrement` forgets the lock.
// Under ThreadSanitizer this must be reported; if it ever is not, the sanitizer run proves
// nothing about the SDK's own `@unchecked Sendable`.

/// The mistake the SDK's `Locked` exists to prevent.
final class CounterBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    /// Correct: under the lock.
    func guardedIncrement() {
        lock.lock()
        value += 1
        lock.unlock()
    }

    /// The planted bug: no lock.
    func unguardedIncrement() { value += 1 }

    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

let box = CounterBox()
let racy = CommandLine.arguments.dropFirst().first != "--guarded"
let done = DispatchGroup()
for _ in 0..<2 {
    done.enter()
    Thread {
        for _ in 0..<10_000 {
            if racy { box.unguardedIncrement() } else { box.guardedIncrement() }
        }
        done.leave()
    }.start()
}
done.wait()
print("RaceCanary finished: \(box.current) increments (\(racy ? "racy" : "guarded"))")
