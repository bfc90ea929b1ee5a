#if canImport(ObjectiveC) && canImport(Darwin)
import Foundation

/// Records an uncaught `NSException` on Apple platforms, for `app_crashed` at the next launch.
///
/// A thin mapping: the handler hands the exception's name, reason and `callStackSymbols` to
/// ``FatalSignalRecorder/recordException(name:reason:symbols:)``, which writes them into the
/// record the fatal-signal recorder holds (platform-neutral, tested on Linux), then calls the
/// handler it replaced. The runtime's `abort()` follows; the `SIGABRT` handler finds the record
/// written and only chains. Install it after ``FatalSignalRecorder/install(recordDescriptor:)``.
///
/// The handler runs on the crashing thread in ordinary code (not a signal handler), so it may
/// format with `String`. `NSUncaughtExceptionHandler` is a C function pointer: ours is a closure
/// that captures nothing, and the one it replaced is kept as the same C function type (no bit
/// casts).
package enum UncaughtExceptionRecorder {
    /// A C function pointer to an uncaught-exception handler, as Foundation imports it.
    private typealias Handler = @convention(c) (NSException) -> Void

    /// Whether ours is installed, and the handler it replaced.
    private struct State: Sendable {
        var isInstalled = false
        var previous: Handler?
    }

    private static let state = Locked(State())

    /// Installs the handler (process-wide; a second call changes nothing).
    /// - Returns: True when this call installed it.
    @discardableResult
    package static func install() -> Bool {
        state.withLock { state in
            guard !state.isInstalled else { return false }
            state.isInstalled = true
            state.previous = NSGetUncaughtExceptionHandler()
            NSSetUncaughtExceptionHandler { exception in UncaughtExceptionRecorder.record(exception) }
            return true
        }
    }

    /// Writes the exception's record, then chains to the previous handler.
    private static func record(_ exception: NSException) {
        FatalSignalRecorder.recordException(
            name: exception.name.rawValue, reason: exception.reason ?? "", symbols: exception.callStackSymbols
        )
        state.withLock { $0.previous }?(exception)
    }
}
#endif
