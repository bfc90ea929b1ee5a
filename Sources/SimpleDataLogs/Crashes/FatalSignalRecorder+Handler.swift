// Linux with glibc (the Musl static SDK spells `sigaction`'s members differently; not covered).
#if os(Linux) && canImport(Glibc)
import Glibc
import Synchronization

// The handler's state. Everything the handler touches is reached from these `Atomic`s, which are
// `Sendable`, so no unsafe global is needed: the state block is a raw allocation whose
// address travels as a `UInt` bit pattern, published with a releasing store after it is fully
// built (install) and read with an acquiring load (handler), so the handler sees it complete.
// Global `let`s are initialized lazily on first use (swift_once); `install` touches each before
// any handler can run, so the handler never triggers an initialization.

/// The address of the installed ``HandlerState``, 0 when none is installed.
let handlerStateAddress = Atomic<UInt>(0)
/// Who writes the record: 0 nobody yet, 1 a thread is writing it, 2 it is written.
let handlerPhase = Atomic<Int>(0)
/// Whether an instance has claimed the recorder (process-wide; the first install wins).
let handlerClaimed = Atomic<Bool>(false)
/// The 64 KB alternate signal stack, allocated once per process and never freed: a thread that
/// installed it keeps pointing at it after ``FatalSignalRecorder/uninstall()``.
let alternateStackAddress = Atomic<UInt>(0)

/// `backtrace(3)`'s signature; it is not exported by the Glibc module, so it is found with
/// `dlsym` at install.
typealias BacktraceFunction = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32

/// Everything the handler needs, allocated and filled at install, before the handler is set.
/// Plain memory: no reference counting, no Swift runtime calls to read it.
struct HandlerState {
    /// The record file, opened at install.
    var descriptor: Int32
    /// Where the header and frame lines are formatted.
    var buffer: UnsafeMutableRawPointer
    var bufferCapacity: Int
    /// Where `backtrace` stores return addresses.
    var frames: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// The `module` lines, formatted at install.
    var moduleLines: UnsafeMutableRawPointer
    var moduleLinesLength: Int
    /// The actions the six signals had before ours, in ``FatalSignal/all`` order.
    var previousActions: UnsafeMutablePointer<sigaction>
    /// `backtrace(3)`, or nil when it could not be found.
    var backtrace: BacktraceFunction?
    /// Byte offset of the interrupted instruction's address in `ucontext_t`; -1 when unknown.
    var programCounterOffset: Int
}

/// The signal handler: a non-capturing C function, so it needs no context object.
let fatalSignalHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { signal, info, context in
    FatalSignalRecorder.handle(signal: signal, info: info, context: context)
}

extension FatalSignalRecorder {
    /// Runs inside the signal handler: only async-signal-safe calls (`write`, `sigaction`,
    /// `raise`, `clock_gettime`, `sched_yield`), no allocation, no locks, no `String`.
    ///
    /// `backtrace(3)` is not async-signal-safe on its first call (it loads libgcc_s); install calls
    /// it once so that here it only walks the stack. It can still deadlock if the crash happened
    /// inside the dynamic loader while it held its lock; the header line is written before it
    /// is called, so such a record still names the signal.
    static func handle(signal: Int32, info: UnsafeMutablePointer<siginfo_t>?, context: UnsafeMutableRawPointer?) {
        guard let state = UnsafeMutablePointer<HandlerState>(bitPattern: handlerStateAddress.load(ordering: .acquiring)) else {
            reraiseWithDefault(signal)
            return
        }
        if handlerPhase.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
            writeRecord(state: state, signal: signal, info: info, context: context, dryRun: false)
            handlerPhase.store(2, ordering: .releasing)
        } else {
            waitForOtherWriter()
        }
        // Chain: restore the action we replaced (the Swift runtime's backtracer by default, or
        // SIG_DFL) and raise again. The signal is blocked until this handler returns, so the
        // previous action runs right after, on the same thread, with the crashed context.
        var index = 0
        while index < 6 {
            if staticNumber(at: index) == signal {
                _ = sigaction(signal, state.pointee.previousActions + index, nil)
            }
            index &+= 1
        }
        _ = raise(signal)
    }

    /// Another thread crashed first and is writing the record: give it up to half a second
    /// before this thread's signal ends the process.
    private static func waitForOtherWriter() {
        var start = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &start)
        while handlerPhase.load(ordering: .acquiring) == 1 {
            var now = timespec()
            _ = clock_gettime(CLOCK_MONOTONIC, &now)
            if (now.tv_sec &- start.tv_sec) &* 1_000_000_000 &+ (now.tv_nsec &- start.tv_nsec) > 500_000_000 { return }
            _ = sched_yield()
        }
    }

    private static func reraiseWithDefault(_ signal: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        _ = sigaction(signal, &action, nil)
        _ = raise(signal)
    }

    /// Formats and writes the record. With `dryRun` (at install) it formats into the buffer and
    /// calls `backtrace` without writing, so that every code path and lazy binding it uses has
    /// run once before a real crash.
    static func writeRecord(state: UnsafeMutablePointer<HandlerState>, signal: Int32, info: UnsafeMutablePointer<siginfo_t>?,
                            context: UnsafeMutableRawPointer?, dryRun: Bool) {
        var writer = RecordWriter(base: state.pointee.buffer, capacity: state.pointee.bufferCapacity)
        writer.append("SDLCRASH 1\nsignal ")
        writer.appendDecimal(Int(signal))
        writer.append(" ")
        writer.append(staticName(of: signal))
        writer.append("\n")
        if let info {
            let code = info.pointee.si_code
            writer.append("code ")
            writer.appendDecimal(Int(code))
            writer.append("\n")
            // si_addr is meaningful only for a fault the kernel raised (code > 0). For a signal
            // sent by a process (abort's SI_TKILL is -6) the same bytes hold the sender's pid.
            if code > 0 {
                writer.append("address 0x")
                writer.appendHex(UInt(bitPattern: info.pointee._sifields._sigfault.si_addr))
                writer.append("\n")
            }
        }
        let offset = state.pointee.programCounterOffset
        if let context, offset >= 0 {
            writer.append("pc 0x")
            writer.appendHex(context.load(fromByteOffset: offset, as: UInt.self))
            writer.append("\n")
        }
        let descriptor = state.pointee.descriptor
        if !dryRun { writeAll(descriptor, writer.base, writer.count) }

        writer.count = 0
        if let backtrace = state.pointee.backtrace {
            let count = Int(backtrace(state.pointee.frames, Int32(CrashRecord.maxFrames)))
            var index = 0
            while index < count {
                writer.append("frame 0x")
                writer.appendHex(UInt(bitPattern: state.pointee.frames[index]))
                writer.append("\n")
                index &+= 1
            }
        }
        if dryRun { return }
        writeAll(descriptor, writer.base, writer.count)
        writeAll(descriptor, state.pointee.moduleLines, state.pointee.moduleLinesLength)
        writer.count = 0
        writer.append("end\n")
        writeAll(descriptor, writer.base, writer.count)
    }

    /// `write(2)` until everything is written, retrying on EINTR; gives up on any other error.
    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) {
        var written = 0
        while written < count {
            let result = write(descriptor, bytes + written, count &- written)
            if result > 0 {
                written &+= result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// The signal number at a position of ``FatalSignal/all``, by a `switch` so the handler
    /// never touches an array.
    static func staticNumber(at index: Int) -> Int32 {
        switch index {
        case 0: 4
        case 1: 5
        case 2: 6
        case 3: 7
        case 4: 8
        default: 11
        }
    }

    /// The name of a signal as a `StaticString`, which needs no allocation.
    static func staticName(of signal: Int32) -> StaticString {
        switch signal {
        case 4: "SIGILL"
        case 5: "SIGTRAP"
        case 6: "SIGABRT"
        case 7: "SIGBUS"
        case 8: "SIGFPE"
        case 11: "SIGSEGV"
        default: "UNKNOWN"
        }
    }
}

/// Appends ASCII to a pre-allocated buffer, dropping what does not fit. Numbers are formatted by
/// hand: no `String`, no allocation.
struct RecordWriter {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var count = 0

    mutating func appendByte(_ byte: UInt8) {
        guard count < capacity else { return }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    mutating func append(_ text: StaticString) {
        let start = text.utf8Start
        var index = 0
        while index < text.utf8CodeUnitCount {
            appendByte(start[index])
            index &+= 1
        }
    }

    mutating func appendDecimal(_ value: Int) {
        if value < 0 { appendByte(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so Int.min does not overflow; digits from the highest power
        // of ten down, so no scratch buffer is needed.
        let magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor &*= 10 }
        while divisor > 0 {
            appendByte(UInt8(truncatingIfNeeded: (magnitude / divisor) % 10) &+ 48)
            divisor /= 10
        }
    }

    mutating func appendHex(_ value: UInt) {
        var shift = UInt.bitWidth &- 4
        var started = false
        while shift >= 0 {
            let nibble = UInt8(truncatingIfNeeded: (value >> UInt(shift)) & 0xF)
            if nibble != 0 || started || shift == 0 {
                started = true
                appendByte(nibble < 10 ? nibble &+ 48 : nibble &+ 87)
            }
            shift &-= 4
        }
    }
}
#endif
