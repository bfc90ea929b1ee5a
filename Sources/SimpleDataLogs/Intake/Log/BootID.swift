#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// This boot of the machine, as the kernel names it: what tells the intake log's recovery
/// whether the kernel that held the log's pages in its cache is the one still running
/// (a kill: every store the dead process made is in the file) or not (a power loss or a kernel
/// crash since: only what was written back to disk survived, in any mix; decision 0045).
///
/// Linux: `/proc/sys/kernel/random/boot_id`, a UUID made at each boot. Apple platforms:
/// `kern.bootsessionuuid`, the same. Empty when it cannot be read (no `/proc` in a container
/// that hides it): recovery then trusts only records whose checksum was made, as after a reboot.
package enum BootID {
    /// The longest id kept (the log's header has this much room for it).
    package static let maxLength = 63

    /// This boot's id, read once per process (it cannot change while the process runs).
    package static let current: [UInt8] = readFromKernel()

    private static func readFromKernel() -> [UInt8] {
        #if os(Linux)
        let descriptor = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { _ = close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        return trimmed(Array(buffer[0..<count]))
        #elseif canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: 64)
        var size = buffer.count
        guard sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0) == 0 else { return [] }
        return trimmed(buffer.prefix(size).map { UInt8(bitPattern: $0) })
        #else
        return []
        #endif
    }

    /// The id without its trailing newline or NUL, and at most ``maxLength`` bytes.
    package static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        while let last = bytes.last, last == 0x0A || last == 0 { bytes.removeLast() }
        return Array(bytes.prefix(maxLength))
    }
}
