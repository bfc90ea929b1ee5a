#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The fatal signals the recorder catches, by name.
///
/// Swift traps (`fatalError`, a force-unwrapped `nil`, overflow, a failed precondition, an index
/// out of range) arrive as `SIGILL` on x86_64 and `SIGTRAP` on arm64; a bad pointer and a stack
/// overflow as `SIGSEGV` (or `SIGBUS`); `abort()` as `SIGABRT`. Numbers are the platform's own
/// (`SIGBUS` is 7 on Linux and 10 on Apple platforms); a record names its signal, so a reader
/// needs this only for a record cut short before the name.
enum FatalSignal {
    /// The name of a signal number on this platform, `signal N` for one the recorder does not catch.
    static func name(of number: Int32) -> String {
        switch number {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGSEGV: "SIGSEGV"
        default: "signal \(number)"
        }
    }
}
