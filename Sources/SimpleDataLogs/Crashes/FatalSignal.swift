/// The fatal signals the Linux recorder catches, with their Linux numbers and names.
///
/// Swift traps (`fatalError`, a force-unwrapped `nil`, overflow, a failed precondition, an index
/// out of range) arrive as `SIGILL` on x86_64 and `SIGTRAP` on arm64; a bad pointer and a stack
/// overflow as `SIGSEGV`; `abort()` as `SIGABRT`.
enum FatalSignal {
    /// `(number, name)`, in the order the handler is installed.
    static let all: [(number: Int32, name: StaticString)] = [
        (4, "SIGILL"), (5, "SIGTRAP"), (6, "SIGABRT"), (7, "SIGBUS"), (8, "SIGFPE"), (11, "SIGSEGV"),
    ]

    /// The name of a signal number, `signal N` for one outside ``all``.
    static func name(of number: Int32) -> String {
        guard let entry = all.first(where: { $0.number == number }) else { return "signal \(number)" }
        return entry.name.description
    }
}
