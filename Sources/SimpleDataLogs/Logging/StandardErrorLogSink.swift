#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes each line to standard error as `simpledatalogs <level>: <message>`, in one `write(2)`
/// so that lines from several threads never interleave.
public struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    public init() {}

    /// Writes one line to standard error.
    public func log(_ level: LogLevel, _ message: String) {
        var line = "simpledatalogs \(level.name): \(message)\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}
