#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SimpleDataLogs

/// Timing, statistics and process-state helpers shared by every benchmark.
enum Measure {
    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: about 20 to 25 ns here (vDSO, no syscall).
    @inline(__always)
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Seconds between two readings of ``now()``.
    static func seconds(_ start: UInt64, _ end: UInt64) -> Double { Double(end &- start) / 1e9 }

    /// The `q` quantile (0...1) of `samples`, by sorting a copy (nearest rank).
    static func quantile<T: BinaryInteger>(_ samples: [T], _ q: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        return quantile(sorted: samples.sorted(), q)
    }

    /// The `q` quantile of already sorted samples (nearest rank).
    static func quantile<T: BinaryInteger>(sorted: [T], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[rank])
    }

    /// The median of doubles.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The cost of one timer reading pair, in ns (median of many), reported next to per-call
    /// timings, which include one reading.
    static func timerOverhead() -> Double {
        var samples = [UInt32](repeating: 0, count: 100_000)
        for index in samples.indices {
            let start = now()
            let end = now()
            samples[index] = UInt32(truncatingIfNeeded: end &- start)
        }
        return quantile(samples, 0.5)
    }

    /// Runs `body` on a new thread of its own (never one of the cooperative pool's) and waits.
    static func onThread<R: Sendable>(_ name: String, _ body: @escaping @Sendable () -> R) -> R {
        let result = ThreadResult<R>()
        let thread = Thread {
            result.set(body())
        }
        thread.name = name
        thread.start()
        return result.wait()
    }

    /// Starts `body` on a new thread and returns a handle to wait for its result.
    static func startThread<R: Sendable>(_ name: String, _ body: @escaping @Sendable () -> R) -> ThreadResult<R> {
        let result = ThreadResult<R>()
        let thread = Thread {
            result.set(body())
        }
        thread.name = name
        thread.start()
        return result
    }

    /// Sleeps the calling thread.
    static func sleep(microseconds: Int) {
        usleep(UInt32(max(0, microseconds)))
    }
}

/// A one-shot result passed from a thread to a waiter.
final class ThreadResult<R: Sendable>: Sendable {
    private let condition = NSCondition()
    private let box = Locked<R?>(nil)

    func set(_ value: R) {
        condition.lock()
        box.withLock { $0 = value }
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until ``set(_:)``. Call from a thread, or from main-level code that owns its thread.
    func wait() -> R {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value = box.withLock({ $0 }) { return value }
            condition.wait()
        }
    }
}

/// The process's memory as `/proc/self/status` tells it.
enum ProcessMemory {
    /// Resident set now, in bytes (`VmRSS`).
    static var resident: Int { field("VmRSS:") }
    /// Peak resident set since start (or since ``resetPeak()``), in bytes (`VmHWM`).
    static var peakResident: Int { field("VmHWM:") }

    /// Resets `VmHWM` to the current RSS (writes 5 to `/proc/self/clear_refs`).
    static func resetPeak() {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }

    private static func field(_ name: String) -> Int {
        // /proc files report a size of 0, so read them with read(2) until the end.
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) } ?? 0
            return number * 1024
        }
        return 0
    }
}

/// A temporary folder under the system's temporary directory, removed by ``remove()``.
struct TemporaryFolder: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-bench-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Every regular file below the folder, with its size.
    func files() -> [(path: String, size: Int)] { Self.files(under: url) }

    /// Every regular file below `url`, with its size.
    static func files(under url: URL) -> [(path: String, size: Int)] {
        guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return [] }
        var found: [(String, Int)] = []
        while let file = enumerator.nextObject() as? URL {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            guard values?.isRegularFile == true else { continue }
            found.append((file.path, values?.fileSize ?? 0))
        }
        return found
    }
}
