/// Turns a record's raw addresses into `module+0xoffset symbol` lines at the next launch.
///
/// The record's module map gives each address its module and offset. When this process has the
/// same file mapped (same path, device and inode), the offset is looked up here too, so a name
/// comes from `dladdr` on the running copy of that file. Pure apart from the two functions it is
/// given, so tests can feed it hand-made maps.
struct CrashSymbolizer {
    /// The modules mapped into this process.
    var currentModules: [CrashRecord.Module]
    /// The symbol at an address of this process, if any (`dladdr`).
    var symbolName: (UInt) -> String?
    /// Makes a symbol readable (Swift demangling); identity by default.
    var demangle: (String) -> String = { $0 }

    /// The stack lines for a record: frames above the interrupted instruction (the signal
    /// handler's own) dropped when `pc` is among the frames, then one line per frame.
    func stackLines(for record: CrashRecord) -> [String] {
        var frames = record.frames
        if let pc = record.pc, pc != 0, let crashed = frames.firstIndex(of: pc) {
            frames.removeFirst(crashed)
        }
        return frames.map { line(for: $0, modules: record.modules) }
    }

    /// `name+0xoffset symbol`, `name+0xoffset`, or `0x<address>` outside every module; `name`
    /// is the module's file name, never its path.
    func line(for address: UInt, modules: [CrashRecord.Module]) -> String {
        guard let module = modules.first(where: { $0.start <= address && address < $0.end }) else {
            return "0x" + String(address, radix: 16)
        }
        let offset = address - module.start
        let name = module.path.split(separator: "/").last.map(String.init) ?? module.path
        var line = "\(name)+0x\(String(offset, radix: 16))"
        if let here = currentModules.first(where: { $0.path == module.path && $0.identity == module.identity }),
           offset < here.end - here.start, let symbol = symbolName(here.start + offset), !symbol.isEmpty {
            line += " " + demangle(symbol)
        }
        return line
    }
}

extension CrashReport {
    /// The report for a record: the exception's name, reason and symbols when the record holds
    /// an exception (Apple), else the signal, a reason such as `fatal signal 4 (SIGILL), code 2,
    /// address 0x55d0c0ffee00`, and the symbolized frames.
    init(record: CrashRecord, symbolizer: CrashSymbolizer) {
        if let exceptionName = record.exceptionName {
            self.init(exceptionName: exceptionName, reason: record.reason ?? "", stack: record.symbols.joined(separator: "\n"))
            return
        }
        let name = record.signalName ?? record.signal.map(FatalSignal.name(of:)) ?? "unknown"
        var reason: String
        if let signal = record.signal {
            reason = "fatal signal \(signal) (\(name))"
            if let code = record.code { reason += ", code \(code)" }
            if let address = record.address { reason += ", address 0x\(String(address, radix: 16))" }
        } else {
            reason = "fatal signal (the crash record could not be read)"
        }
        self.init(exceptionName: name, reason: reason, stack: symbolizer.stackLines(for: record).joined(separator: "\n"))
    }
}
