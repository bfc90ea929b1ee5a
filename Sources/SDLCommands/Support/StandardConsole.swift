#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard output and error, written with `write(2)` so each line leaves at
/// once: `print` buffers when output is a pipe, and a progress line that shows up only at exit
/// tells nothing.
package struct StandardConsole: Console {
    /// Creates the console.
    package init() {}

    package func out(_ line: String) { Self.write(line, to: 1) }

    package func err(_ line: String) { Self.write(line, to: 2) }

    private static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                systemWrite(descriptor, raw.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// `write(2)` under another name, so the method above can share the system's.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, bytes, count) }
