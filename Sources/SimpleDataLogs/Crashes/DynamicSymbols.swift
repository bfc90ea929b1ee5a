// Linux with glibc (the Musl static SDK spells `sigaction`'s members differently; not covered).
#if os(Linux) && canImport(Glibc)
import Glibc

/// C functions the Glibc module does not export (`dladdr`, `swift_demangle`),
/// found with `dlsym` in the default namespace (on Linux `RTLD_DEFAULT` is 0, i.e. nil).
enum DynamicSymbols {
    private typealias DladdrFunction = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias DemangleFunction = @convention(c) (
        UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
    ) -> UnsafeMutablePointer<CChar>?

    /// The dynamic symbol covering an address of this process (`dladdr`'s `dli_sname`), or nil.
    static func name(at address: UInt) -> String? {
        guard let symbol = dlsym(nil, "dladdr"), address != 0 else { return nil }
        // The raw pointer is glibc's dladdr, whose C signature DladdrFunction spells (section 11).
        let dladdr = unsafeBitCast(symbol, to: DladdrFunction.self)
        // Dl_info is four pointers: dli_fname, dli_fbase, dli_sname, dli_saddr.
        var info: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
        let found = withUnsafeMutableBytes(of: &info) { dladdr(UnsafeRawPointer(bitPattern: address), $0.baseAddress) }
        guard found != 0, let name = UnsafePointer<CChar>(bitPattern: info.2) else { return nil }
        return String(cString: name)
    }

    /// A Swift symbol demangled by the runtime (`swift_demangle`); other names unchanged.
    static func demangle(_ symbol: String) -> String {
        guard symbol.hasPrefix("$s") || symbol.hasPrefix("_$s"), let function = dlsym(nil, "swift_demangle") else { return symbol }
        // The raw pointer is the Swift runtime's swift_demangle, with the C signature spelled above.
        let swiftDemangle = unsafeBitCast(function, to: DemangleFunction.self)
        let result = symbol.withCString { swiftDemangle($0, strlen($0), nil, nil, 0) }
        guard let result else { return symbol }
        defer { free(result) }
        return String(cString: result)
    }
}
#endif
