import Foundation
import Testing
@testable import SimpleDataLogs

/// The intake log's one promise, tried for real: a process appending from several threads is
/// killed with SIGKILL mid-stream, and every record it had not released (what its journal had
/// not yet taken) is in the file, whole, with nothing `write(2)` or `fsync` did for it.
@Suite("Intake log: SIGKILL mid-append", .stuckTestLimit, .tags(.processes))
struct IntakeLogKillTests {
    @Test("4 threads appending flat out, killed after 40,000+ appends (several laps of the ring): the 2,000 newest records are all there and whole, numbered without a gap up to at least the last count the child printed")
    func killedMidAppend() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let path = directory.path + "/intake.log"
        let printed: Int = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["intake-log", path, "4"])
            var last = 0
            while let line = child.readLine(until: { $0.hasPrefix("appended ") }) {
                last = Int(line.dropFirst("appended ".count)) ?? last
                if last >= 40_000 { break }
            }
            child.kill()
            return last
        }
        #expect(printed >= 40_000, "the child appended")
        let contents = try IntakeLogFormat.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).get()
        let newest = try #require(contents.records.last?.sequence)
        // Appends are numbered in the order they take the log's lock: every number up to the
        // newest intact one belongs to an append that had returned, or was returning.
        #expect(newest >= UInt64(printed), "every append the child counted is in the file")
        let window = (newest - 1_999)...newest
        let held = contents.records.filter { window.contains($0.sequence) }
        #expect(held.map(\.sequence) == Array(window), "no gap among the unreleased records")
        // What recovery replays: everything after the header's release point, without a gap, and
        // at most what the child held back (plus the appends that ran between a release and
        // the next: four threads).
        let unreleased = contents.unreleased.map(\.sequence)
        #expect(unreleased.last == newest && unreleased == Array((contents.releasedThrough + 1)...newest), "released through \(contents.releasedThrough)")
        #expect(unreleased.count >= 1_990 && unreleased.count <= 2_010, "\(unreleased.count) to replay")
        var byThread: [UInt8: [UInt64]] = [:]
        for record in held {
            let payload = record.payload
            guard payload.count >= 9 else {
                Issue.record("record \(record.sequence): \(payload.count) bytes")
                continue
            }
            let counter = payload[1..<9].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            let filler = payload.dropFirst(9)
            #expect(filler.count == Int(counter % 200) && filler.allSatisfy { $0 == UInt8(truncatingIfNeeded: counter) }, "record \(record.sequence) is whole")
            byThread[payload[0], default: []].append(counter)
        }
        // Each thread's appends in the window are its newest ones, one after another.
        for (thread, counters) in byThread {
            #expect(counters == Array((counters.first ?? 0)...(counters.last ?? 0)), "thread \(thread): \(counters.prefix(5))…")
        }
    }
}
