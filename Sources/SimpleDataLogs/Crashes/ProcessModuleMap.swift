/// The files with executable code mapped into a process, from the text of `/proc/<pid>/maps`.
///
/// Pure: the recorder reads `/proc/self/maps` at install and at the next launch, and hands the
/// text here.
enum ProcessModuleMap {
    /// Parses `/proc/<pid>/maps` lines (`start-end perms offset dev inode path`) into one module
    /// per file path that has at least one executable mapping; anonymous and bracketed mappings
    /// (`[vdso]`, `[heap]`) are left out, as are malformed lines.
    /// - Parameter maps: The file's text.
    /// - Returns: The modules, in the order their paths first appear.
    static func modules(fromMaps maps: String) -> [CrashRecord.Module] {
        var order: [String] = []
        var byPath: [String: (module: CrashRecord.Module, isExecutable: Bool)] = [:]
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), start < end else { continue }
            let path = String(fields[5].drop { $0 == " " })
            guard path.hasPrefix("/") else { continue }
            let isExecutable = fields[1].contains("x")
            if var entry = byPath[path] {
                entry.module.start = min(entry.module.start, start)
                entry.module.end = max(entry.module.end, end)
                entry.isExecutable = entry.isExecutable || isExecutable
                byPath[path] = entry
            } else {
                order.append(path)
                let module = CrashRecord.Module(start: start, end: end, identity: "\(fields[3]):\(fields[4])", path: path)
                byPath[path] = (module, isExecutable)
            }
        }
        return order.compactMap { path in byPath[path].flatMap { $0.isExecutable ? $0.module : nil } }
    }
}
