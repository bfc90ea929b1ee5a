#if canImport(ObjectiveC) && canImport(Darwin)
import Darwin
import Foundation

/// Records an uncaught `NSException` on Apple platforms into the crash record file, for
/// `app_crashed` at the next launch.
///
/// Only uncaught Objective-C exceptions are captured on Apple platforms: fatal signals, and so
/// Swift traps (`fatalError`, a force-unwrapped `nil`, overflow), are not, as the product doc
/// says. On Linux ``FatalSignalRecorder`` covers signals, Swift traps included. Both write the
/// record format of ``CrashRecord`` (here the `exception`, `reason` and `symbol` lines) and
/// produce the same ``CrashReport``.
///
/// The handler runs on the crashing thread before the runtime calls `abort()`, in ordinary code
/// (not a signal handler), so it formats with `String`. It writes the name, the reason and
/// `callStackSymbols` to the file opened at install, then calls the handler it replaced.
/// Process-wide like the Linux recorder: the first install wins, a later one returns false;
/// the instance that sends at the next launch is the one whose outbox folder holds the file.
package enum UncaughtExceptionRecorder {
    /// The record file and the handler that was installed before ours (as a bit pattern; 0 for
    /// none), guarded by a lock: the handler is not a signal handler, so a lock is allowed.
    private struct State: Sendable {
        var descriptor: Int32 = -1
        var previousHandler: UInt = 0
    }

    private static let state = Locked(State())

    /// Installs the uncaught-exception handler, writing to `recordDescriptor`.
    /// - Parameter recordDescriptor: An empty record file, open for writing
    ///   (``CrashRecordFiles/create(in:fileSystem:)``); on success the recorder owns it.
    /// - Returns: True when this call installed the handler; false when another instance already
    ///   has (the caller keeps the descriptor then).
    package static func install(recordDescriptor descriptor: Int32) -> Bool {
        state.withLock { state in
            guard state.descriptor < 0 else { return false }
            state.descriptor = descriptor
            state.previousHandler = unsafeBitCast(NSGetUncaughtExceptionHandler(), to: UInt.self)
            NSSetUncaughtExceptionHandler { exception in UncaughtExceptionRecorder.record(exception) }
            return true
        }
    }

    /// Restores the handler that was installed before and closes the file. For tests.
    package static func uninstall() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            NSSetUncaughtExceptionHandler(unsafeBitCast(state.previousHandler, to: NSUncaughtExceptionHandler?.self))
            _ = close(state.descriptor)
            state = State()
        }
    }

    /// Writes the exception's record, then chains to the previous handler.
    private static func record(_ exception: NSException) {
        let text = CrashRecord.exceptionRecord(
            name: exception.name.rawValue, reason: exception.reason ?? "", symbols: exception.callStackSymbols
        )
        let (descriptor, previous) = state.withLock { ($0.descriptor, $0.previousHandler) }
        if descriptor >= 0 {
            let bytes = Array(text.utf8)
            var written = 0
            while written < bytes.count {
                let result = bytes.withUnsafeBytes { buffer -> Int in
                    guard let base = buffer.baseAddress else { return -1 }
                    return write(descriptor, base + written, buffer.count - written)
                }
                if result > 0 { written += result } else if result < 0 && errno == EINTR { continue } else { break }
            }
        }
        unsafeBitCast(previous, to: NSUncaughtExceptionHandler?.self)?(exception)
    }
}
#endif
