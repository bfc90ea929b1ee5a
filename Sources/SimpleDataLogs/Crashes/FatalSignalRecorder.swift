// Linux with glibc (the Musl static SDK spells `sigaction`'s members differently; not covered).
#if os(Linux) && canImport(Glibc)
import Glibc
import Synchronization

/// Records fatal signals on Linux into a crash record file, for `app_crashed` at the next launch.
///
/// ``install(recordDescriptor:)`` sets an async-signal-safe handler for `SIGILL`, `SIGTRAP`,
/// `SIGABRT`, `SIGBUS`, `SIGFPE` and `SIGSEGV`. Swift traps (`fatalError`, a force-unwrapped
/// `nil`, overflow, a failed precondition) arrive as `SIGILL` on x86_64 and `SIGTRAP` on arm64; a
/// bad pointer and a stack overflow as `SIGSEGV`; `abort()` as `SIGABRT`. At the crash the handler
/// writes the signal, its code and address, the interrupted instruction, up to 128 return
/// addresses and the module map formatted at install (see ``CrashRecord`` for the bytes), on a
/// 64 KB alternate signal stack (so a stack overflow can be recorded), then restores the action
/// it replaced and raises the signal again: the Swift runtime's backtracer, installed by default,
/// still prints its report to standard error, and the process still dies of the same signal.
/// The runtime's own message ("Fatal error: …") goes only to standard error; the record has the
/// signal, not the message.
///
/// At the next launch, ``report(fromRecord:)`` turns the record into a ``CrashReport``.
///
/// The handler is process-wide. With several SDK instances exactly one records: the first to
/// install; a later ``install(recordDescriptor:)`` returns false and changes nothing. The instance that
/// sends the crash at the next launch is the one whose outbox folder holds the record file.
///
/// Limits: the alternate stack is set for the thread that calls ``install(recordDescriptor:)`` (call
/// it from the main thread); a stack overflow on another thread that has no alternate stack of
/// its own kills the process unrecorded. Modules loaded after install appear as bare addresses.
/// Signals are not captured on Apple platforms, where only uncaught `NSException`s are.
package enum FatalSignalRecorder {
    /// The size of the alternate signal stack.
    static let alternateStackSize = 65_536
    /// The size of the buffer the header and frame lines are formatted into: room for 128
    /// frames of 25 bytes and the header.
    static let bufferCapacity = 8_192

    /// Installs the handler, writing to `recordDescriptor` at a crash.
    ///
    /// Formats the module map, warms up `backtrace(3)`, allocates the buffers and the alternate
    /// stack, saves the six signals' actions and installs the handler.
    /// - Parameter recordDescriptor: An empty record file, open for writing
    ///   (``CrashRecordFiles/create(in:fileSystem:)``). On success the recorder owns it and keeps
    ///   it open (and so locked) for the life of the process.
    /// - Returns: True when this call installed the handler; false when another instance already
    ///   has (process-wide, the first install wins); the caller keeps the descriptor then.
    package static func install(recordDescriptor descriptor: Int32) -> Bool {
        guard handlerClaimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        let state = makeState(descriptor: descriptor)
        useAlternateStack()
        // Touch the handler's globals (their lazy initialization must not happen in the handler)
        // and run its code once without writing: warms up backtrace(3) and any lazy binding.
        handlerPhase.store(0, ordering: .releasing)
        writeRecord(state: state, signal: 0, info: nil, context: nil, dryRun: true)
        handlerStateAddress.store(UInt(bitPattern: state), ordering: .releasing)

        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fatalSignalHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        // The six signals are blocked while the handler runs: a fault inside it ends the process
        // (the kernel forces the default action) instead of entering it again.
        sigemptyset(&action.sa_mask)
        for (number, _) in FatalSignal.all { sigaddset(&action.sa_mask, number) }
        for (index, entry) in FatalSignal.all.enumerated() {
            _ = sigaction(entry.number, &action, state.pointee.previousActions + index)
        }
        return true
    }

    /// Restores the actions the six signals had before ``install(recordDescriptor:)``, closes the
    /// record file (which gives up its lock) and frees the buffers (the alternate stack stays: threads may still point at
    /// it). For tests; must not race a crash on another thread.
    package static func uninstall() {
        guard let state = UnsafeMutablePointer<HandlerState>(bitPattern: handlerStateAddress.load(ordering: .acquiring)) else { return }
        for (index, entry) in FatalSignal.all.enumerated() {
            _ = sigaction(entry.number, state.pointee.previousActions + index, nil)
        }
        handlerStateAddress.store(0, ordering: .releasing)
        _ = close(state.pointee.descriptor)
        state.pointee.buffer.deallocate()
        state.pointee.frames.deallocate()
        state.pointee.moduleLines.deallocate()
        state.pointee.previousActions.deallocate()
        state.deallocate()
        handlerClaimed.store(false, ordering: .releasing)
    }

    /// The crash a record's bytes describe (see ``CrashRecordFiles/takeLeftovers(in:fileSystem:)``).
    ///
    /// Each frame becomes `module+0xoffset` from the saved module map, plus a symbol name when
    /// this process has the same file mapped (`dladdr` on the same offset here). A malformed or
    /// truncated record gives what could be read.
    /// - Parameter bytes: The record file's contents.
    /// - Returns: The crash, or nil when `bytes` is empty (installed, no crash).
    package static func report(fromRecord bytes: [UInt8]) -> CrashReport? {
        guard let record = CrashRecord.parse(bytes) else { return nil }
        let symbolizer = CrashSymbolizer(
            currentModules: ProcessModuleMap.modules(fromMaps: String(decoding: readFile("/proc/self/maps") ?? [], as: UTF8.self)),
            symbolName: DynamicSymbols.name(at:),
            demangle: DynamicSymbols.demangle
        )
        return CrashReport(record: record, symbolizer: symbolizer)
    }

    /// Builds the handler's state block.
    private static func makeState(descriptor: Int32) -> UnsafeMutablePointer<HandlerState> {
        let maps = String(decoding: readFile("/proc/self/maps") ?? [], as: UTF8.self)
        let lines = Array(CrashRecord.moduleLines(ProcessModuleMap.modules(fromMaps: maps)).utf8)
        let moduleLines = UnsafeMutableRawPointer.allocate(byteCount: max(lines.count, 1), alignment: 1)
        lines.withUnsafeBytes { moduleLines.copyMemory(from: $0.baseAddress!, byteCount: lines.count) }

        let frames = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: CrashRecord.maxFrames)
        frames.initialize(repeating: nil, count: CrashRecord.maxFrames)
        let previousActions = UnsafeMutablePointer<sigaction>.allocate(capacity: FatalSignal.all.count)
        previousActions.initialize(repeating: sigaction(), count: FatalSignal.all.count)

        let state = UnsafeMutablePointer<HandlerState>.allocate(capacity: 1)
        state.initialize(to: HandlerState(
            descriptor: descriptor,
            buffer: UnsafeMutableRawPointer.allocate(byteCount: bufferCapacity, alignment: 16),
            bufferCapacity: bufferCapacity,
            frames: frames,
            moduleLines: moduleLines,
            moduleLinesLength: lines.count,
            previousActions: previousActions,
            backtrace: DynamicSymbols.backtrace(),
            programCounterOffset: programCounterOffset()
        ))
        return state
    }

    /// Gives the calling thread the process's 64 KB alternate signal stack, unless it already
    /// has one at least that large (the Swift runtime gives the main thread a smaller one).
    private static func useAlternateStack() {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0 else { return }
        if current.ss_flags & Int32(SS_DISABLE) == 0 {
            if current.ss_size >= alternateStackSize { return }
            // AddressSanitizer gives every thread an alternate stack of its own and unmaps it when
            // the thread ends; replacing it makes that unmap fail and ASan abort the process. Its
            // stack is large enough for this handler, so under ASan the existing one stays.
            if isAddressSanitizerLoaded { return }
        }
        var address = alternateStackAddress.load(ordering: .acquiring)
        if address == 0 {
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
            let (exchanged, winner) = alternateStackAddress.compareExchange(
                expected: 0, desired: UInt(bitPattern: fresh), ordering: .acquiringAndReleasing
            )
            if exchanged { address = UInt(bitPattern: fresh) } else { fresh.deallocate(); address = winner }
        }
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer(bitPattern: address)
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        _ = sigaltstack(&stack, nil)
    }

    /// Whether this process runs under AddressSanitizer (a test build).
    private static let isAddressSanitizerLoaded: Bool = dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil

    /// Where `ucontext_t` keeps the interrupted instruction's address; -1 where unknown.
    private static func programCounterOffset() -> Int {
        // The layouts of <sys/ucontext.h> in glibc, spelled out: the Swift importer places
        // `ucontext_t`'s members in another module (CDispatch), so they are not reachable here.
        // A wrong offset would only make the `pc` line wrong, and the reader then keeps every frame.
        #if arch(x86_64)
        // uc_flags, uc_link, uc_stack, then uc_mcontext.gregs[REG_RIP], REG_RIP = 16.
        return 8 + 8 + MemoryLayout<stack_t>.size + 16 * 8
        #elseif arch(arm64)
        // uc_flags, uc_link, uc_stack, uc_sigmask (128 bytes), then uc_mcontext aligned to 16:
        // fault_address, regs[31], sp, pc. Derived from the header, not run here.
        return 176 + 8 + 31 * 8 + 8
        #else
        return -1
        #endif
    }

    /// The whole contents of a file read with `read(2)` (which also works for /proc files,
    /// whose size reads as 0), or nil when it cannot be opened.
    static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { _ = close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return count == 0 ? bytes : nil
            }
        }
    }
}
#endif
