#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
import CSignals

extension ProcessModuleMap {
    /// The modules mapped into this process now: from `/proc/self/maps` on Linux (identity
    /// `<dev>:<inode>`), from dyld's image list on Apple platforms (each image's `__TEXT` range,
    /// identity its LC_UUID in hexadecimal).
    static func current() -> [CrashRecord.Module] {
        #if canImport(Darwin)
        var images = [sdl_loaded_image](repeating: sdl_loaded_image(), count: 4_096)
        let count = images.withUnsafeMutableBufferPointer { sdl_loaded_images($0.baseAddress, $0.count) }
        return images.prefix(count).map { image in
            let uuid = withUnsafeBytes(of: image.uuid) { bytes in bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }
            return CrashRecord.Module(start: image.start, end: image.end, identity: uuid, path: String(cString: image.path))
        }
        #else
        modules(fromMaps: String(decoding: readProcFile("/proc/self/maps") ?? [], as: UTF8.self))
        #endif
    }

    /// The whole contents of a file read with `read(2)` (which also works for /proc files,
    /// whose size reads as 0), or nil when it cannot be opened.
    static func readProcFile(_ path: String) -> [UInt8]? {
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

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
#endif
