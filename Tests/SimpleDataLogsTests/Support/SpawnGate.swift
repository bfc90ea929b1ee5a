import Foundation

/// Keeps `flock` checks in this process from seeing a child being spawned.
///
/// Why: spawning a child (`Process.run`, which is `posix_spawn`) gives it a copy of every
/// descriptor of this process, and the copy lives until the child's `exec` closes the
/// close-on-exec ones. A lock belongs to the open file, not to the descriptor, so while a copy
/// lives, a file this process has just closed is still locked. A test that releases an outbox
/// area or a crash record and at once expects to take it again (a relaunch in the same folder)
/// would then fail now and then while another test spawns a child. Every spawn of the tests runs
/// inside ``spawning(_:)`` (which returns once the child has exec'd) and every lock attempt of the
/// test file systems inside ``withNoSpawnInFlight(_:)``; both hold one lock, for a few
/// milliseconds at most. The SDK itself tolerates such a copy: the area it could not lock is
/// adopted by a later launch, the record sent by one.
enum SpawnGate {
    /// A plain mutex guarding no Swift value: what it orders are system calls.
    private static let gate = NSLock()

    /// Runs `spawn` (a `Process.run()`) with no lock attempt in flight.
    static func spawning<T>(_ spawn: () throws -> T) rethrows -> T {
        try gate.withLock(spawn)
    }

    /// Runs `body` (a lock attempt) with no spawn in flight.
    static func withNoSpawnInFlight<T>(_ body: () throws -> T) rethrows -> T {
        try gate.withLock(body)
    }
}
