#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import SimpleDataLogs

/// Outbox folders written byte by byte in the format of Docs/formats.md (layout: DESIGN.md section 7), for `sdl outbox`.
struct OutboxFixture {
    let directory = TemporaryDirectory("sdl-outbox")
    var root: String { directory.path }

    init() {
        try? FileManager.default.createDirectory(atPath: root + "/quarantine", withIntermediateDirectories: true)
    }

    /// Makes `areas/<name>/` with its folders and a lock file saying `pid <pid>`.
    func area(_ name: String = "a0", ownerPID: Int32) -> String {
        let folder = root + "/areas/" + name
        for sub in ["batches", "set-aside", "tmp"] {
            try? FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        _ = FileManager.default.createFile(atPath: folder + "/lock", contents: Data("pid \(ownerPID)\n".utf8))
        return folder
    }

    /// One event's payload as the SDK writes it.
    static func event(_ name: String, ts: Int64) -> [UInt8] {
        Array(#"{"event":"\#(name)","event_id":"\#(UUID().uuidString.lowercased())","ts":\#(ts),"props":{"ts":1}}"#.utf8)
    }

    /// A journal's bytes: one record per timestamp.
    static func journal(_ timestamps: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = []
        for ts in timestamps { JournalRecord.append(payload: event("e", ts: ts), to: &bytes) }
        return bytes
    }

    /// Writes a sealed batch file into `folder` (`batches` or `set-aside`); returns its name.
    @discardableResult
    func batch(in area: String, folder: String = "batches", sequence: Int, timestamps: [Int64], damage: ((inout [UInt8]) -> Void)? = nil) -> String {
        let batch = SealedBatch(id: UUID(), sequence: sequence, path: "r", payloads: timestamps.map { Self.event("e", ts: $0) })
        var bytes = BatchFile.encode(batch)
        damage?(&bytes)
        _ = FileManager.default.createFile(atPath: area + "/" + folder + "/" + batch.fileName, contents: Data(bytes))
        return batch.fileName
    }

    /// Every file under the root with its size and modification time, to prove nothing changed.
    func snapshot() -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            let attributes = (try? FileManager.default.attributesOfItem(atPath: root + "/" + path)) ?? [:]
            result[path] = "\(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? 0) \(attributes[.posixPermissions] ?? 0)"
        }
        return result
    }

    func remove() { directory.remove() }
}

/// Holds an area's lock the way a running client does: `flock(LOCK_EX)` on its lock file.
final class HeldLock {
    private let descriptor: Int32

    init?(area: String) {
        descriptor = open(area + "/lock", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            // Refused: the descriptor goes now, or it would stay open for the rest of the run.
            close(descriptor)
            return nil
        }
    }

    func release() { close(descriptor) }
}

/// A pid that no process has: above the kernel's `pid_max` (4,194,304 at most on Linux).
let deadPID: Int32 = 99_999_999
