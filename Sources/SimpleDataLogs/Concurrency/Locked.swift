#if canImport(os)
import os
#else
import Foundation
#endif

/// A value guarded by a lock, for the synchronous paths that must not `await` (`track()`, counters).
///
/// Why not `Synchronization.Mutex`: it needs macOS 15 / iOS 18 (our floor is 13 / 16), and on
/// Linux ThreadSanitizer reports false races through it, because its futex lives in an
/// uninstrumented library. Why not an actor: `track()` is synchronous and must return at once.
///
/// - On Apple platforms this wraps `OSAllocatedUnfairLock`, which is `Sendable` by itself.
/// - On Linux it is a class holding an `NSLock` (a pthread mutex that ThreadSanitizer understands)
///   and the state. That class is the package's one `@unchecked Sendable`; DESIGN.md
///   ("Unsafe opt-outs") carries the proof, restated at the declaration below.
package struct Locked<State: Sendable>: Sendable {
    #if canImport(os)
    private let lock: OSAllocatedUnfairLock<State>
    #else
    private let box: LockedBox<State>
    #endif

    /// Creates the lock around an initial state.
    package init(_ initial: State) {
        #if canImport(os)
        lock = OSAllocatedUnfairLock(initialState: initial)
        #else
        box = LockedBox(initial)
        #endif
    }

    /// Runs `body` with exclusive access to the state. Never call out to user code or `await` inside.
    @inline(__always)
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        #if canImport(os)
        return try lock.withLockUnchecked(body)
        #else
        return try box.withLock(body)
        #endif
    }
}

#if !canImport(os)
/// The Linux storage of ``Locked``.
///
/// `@unchecked Sendable` is safe here because:
/// 1. `state` is `private`; the only access is `withLock`, which holds `lock` for the whole
///    access, so no two threads touch `state` at once (mutual exclusion by a pthread mutex, which
///    also orders memory: unlock happens-before the next lock).
/// 2. `State` is itself `Sendable`, so a value taken out of the lock can cross threads.
/// 3. The class is `final` and has no other members, so no subclass or extension can add an
///    unguarded path. ThreadSanitizer instruments `NSLock`, and a test plants a real race to show
///    the sanitizer would catch a mistake in code like this.
private final class LockedBox<State: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    /// Exclusivity is what the lock guarantees, so the runtime's own dynamic check (about 117
    /// instructions per access, measured with callgrind) is switched off for this one property.
    @exclusivity(unchecked) private var state: State

    init(_ initial: State) { state = initial }

    @inline(__always)
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
#endif
