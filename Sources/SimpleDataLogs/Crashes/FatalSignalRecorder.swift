#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
import CSignals

/// Records fatal signals into a crash record file, for `app_crashed` at the next launch: on
/// Linux and on Apple platforms, from the same code.
///
/// ``install(recordDescriptor:)`` sets an async-signal-safe handler for `SIGILL`, `SIGTRAP`,
/// `SIGABRT`, `SIGBUS`, `SIGFPE` and `SIGSEGV`. Swift traps (`fatalError`, a force-unwrapped
/// `nil`, overflow, a failed precondition) arrive as `SIGILL` on x86_64 and `SIGTRAP` on arm64; a
/// bad pointer and a stack overflow as `SIGSEGV` (or `SIGBUS` on Apple platforms); `abort()` as
/// `SIGABRT`. At the crash the handler writes the signal, its code and address, the interrupted
/// instruction, up to 128 return addresses and the module map formatted at install (see
/// ``CrashRecord`` for the bytes), on a 64 KB alternate signal stack (so a stack overflow can be
/// recorded), then restores the action it replaced and raises the signal again: the Swift
/// runtime's backtracer (or Apple's crash reporter) still runs, and the process still dies of the
/// same signal. The runtime's own message ("Fatal error: …") is not in the record.
///
/// The handler itself is C (`CSignals`): a signal handler may only make async-signal-safe
/// calls, and C shows that line by line where Swift cannot promise it. Its shared words use the
/// compiler's atomics, so nothing here needs `Synchronization` (macOS 15 / iOS 18) and the
/// platform floor stays where it is.
///
/// At the next launch, ``report(fromRecord:)`` turns the record into a ``CrashReport``.
///
/// The handler is process-wide. With several SDK instances exactly one records: the first to
/// install; a later ``install(recordDescriptor:)`` returns false and changes nothing. The
/// instance that sends the crash at the next launch is the one whose outbox folder holds the
/// record file. On Apple platforms ``UncaughtExceptionRecorder`` writes to the same record first
/// (``recordException(name:reason:symbols:)``), and the `SIGABRT` that follows only chains.
///
/// Limits: the alternate stack is set for the thread that calls ``install(recordDescriptor:)``
/// (call it from the main thread); a stack overflow on another thread that has no alternate
/// stack of its own kills the process unrecorded. Modules loaded after install appear as bare
/// addresses.
package enum FatalSignalRecorder {
    /// Installs the handler, writing to `recordDescriptor` at a crash.
    ///
    /// Formats the module map, then hands it and the descriptor to the C recorder, which
    /// allocates its buffers and the alternate stack, warms up `backtrace(3)` and sets the six
    /// actions.
    /// - Parameter recordDescriptor: An empty record file, open for writing
    ///   (``CrashRecordFiles/create(in:fileSystem:)``). On success the recorder owns it and keeps
    ///   it open (and so locked) for the life of the process.
    /// - Returns: True when this call installed the handler; false when another instance already
    ///   has (process-wide, the first install wins) or memory ran out; the caller keeps the
    ///   descriptor then.
    package static func install(recordDescriptor descriptor: Int32) -> Bool {
        let lines = Array(CrashRecord.moduleLines(ProcessModuleMap.current()).utf8)
        let result = lines.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                sdl_fatal_signals_install(descriptor, $0.baseAddress, $0.count, isAddressSanitizerLoaded ? 1 : 0)
            }
        }
        return result == 1
    }

    /// Restores the actions the six signals had before ``install(recordDescriptor:)``, closes
    /// the record file (which gives up its lock) and frees the buffers (the alternate stack
    /// stays: threads may still point at it). For tests; must not race a crash on another thread.
    package static func uninstall() {
        sdl_fatal_signals_uninstall()
    }

    /// Writes an exception's record (name, reason, symbols) to the installed record file, from
    /// ordinary code that runs before the process dies (Apple's uncaught-exception handler).
    ///
    /// Claims the record first, so the signal that follows (`abort()`'s `SIGABRT`) finds it
    /// written and only chains; a crash already being recorded on another thread keeps its record.
    /// - Returns: True when the record was written; false when no recorder is installed or the
    ///   record was already claimed.
    @discardableResult
    package static func recordException(name: String, reason: String, symbols: [String]) -> Bool {
        let descriptor = sdl_fatal_signals_begin_record()
        guard descriptor >= 0 else { return false }
        defer { sdl_fatal_signals_end_record() }
        let bytes = Array(CrashRecord.exceptionRecord(name: name, reason: reason, symbols: symbols).utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if result > 0 {
                written += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// The crash a record's bytes describe (see ``CrashRecordFiles/takeLeftovers(in:fileSystem:)``).
    ///
    /// Each frame becomes `module+0xoffset` from the saved module map; on Linux also a symbol
    /// name when this process has the same file mapped (`dladdr` on the same offset here). A
    /// malformed or truncated record gives what could be read.
    /// - Parameter bytes: The record file's contents.
    /// - Returns: The crash, or nil when `bytes` is empty (installed, no crash).
    package static func report(fromRecord bytes: [UInt8]) -> CrashReport? {
        guard let record = CrashRecord.parse(bytes) else { return nil }
        #if os(Linux) && canImport(Glibc)
        let symbolizer = CrashSymbolizer(
            currentModules: ProcessModuleMap.current(), symbolName: DynamicSymbols.name(at:), demangle: DynamicSymbols.demangle
        )
        #else
        // Unsymbolized elsewhere: `module+0xoffset` lines, which the module's dSYM resolves.
        let symbolizer = CrashSymbolizer(currentModules: [], symbolName: { _ in nil })
        #endif
        return CrashReport(record: record, symbolizer: symbolizer)
    }

    /// Whether this process runs under AddressSanitizer (a test build), whose per-thread
    /// alternate stacks must not be replaced.
    private static var isAddressSanitizerLoaded: Bool {
        dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil
    }
}
#endif
