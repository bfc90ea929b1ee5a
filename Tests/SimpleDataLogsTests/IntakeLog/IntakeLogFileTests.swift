import Foundation
import Testing
@testable import SimpleDataLogs

/// The intake log's mapped file (``IntakeLogFile``): what an append leaves in the file, read back
/// with `read(2)` as recovery will read it.
@Suite("Intake log: the mapped file")
struct IntakeLogFileTests {
    static func read(_ path: String) throws -> IntakeLogFormat.Contents {
        try IntakeLogFormat.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).get()
    }

    @Test("appends are in the file at once, through the mapping, while it is still open: every held record reads back intact, across many laps of the ring")
    func appendsReadBack() throws {
        let directory = try TemporaryDirectory.made()
        defer { directory.remove() }
        var failure: String?
        var log = try #require(IntakeLogFile.create(at: directory.path + "/intake.log", slotCount: 64, firstSequence: 100, failure: &failure), "\(failure ?? "")")
        defer { log.close() }
        var payloads: [UInt64: [UInt8]] = [:]
        for index in 0..<2_000 {
            let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: index % 300)
            guard case .written(let sequence) = log.append(kind: 3, payload: payload) else {
                Issue.record("append \(index) refused")
                return
            }
            #expect(sequence == UInt64(100 + index))
            payloads[sequence] = payload
            // The journal trails by 10 records.
            if sequence >= 110 { log.release(through: sequence - 10) }
        }
        let contents = try Self.read(log.path)
        let held = contents.records.filter { $0.sequence > 2_099 - 10 }
        #expect(held.map(\.sequence) == Array(2_090...2_099), "the ten held records, whole")
        #expect(held.allSatisfy { $0.payload == payloads[$0.sequence] && $0.kind == 3 })
        #expect(contents.records.allSatisfy { $0.payload == payloads[$0.sequence] }, "stale records read back are what was written under their number")
        #expect(contents.releasedThrough == 2_089 && contents.unreleased.map(\.sequence) == Array(2_090...2_099), "the header says what is released")
    }

    @Test("when every slot is held the log says full and writes nothing; a release makes room; a closed log says closed")
    func fullAndClosed() throws {
        let directory = try TemporaryDirectory.made()
        defer { directory.remove() }
        var failure: String?
        var log = try #require(IntakeLogFile.create(at: directory.path + "/intake.log", slotCount: 4, firstSequence: 1, failure: &failure))
        let two = [UInt8](repeating: 9, count: 200)  // two slots each
        #expect(log.append(kind: 1, payload: two) == .written(1))
        #expect(log.append(kind: 1, payload: two) == .written(2))
        #expect(log.append(kind: 1, payload: [1]) == .full)
        #expect(log.heldCount == 2)
        log.release(through: 1)
        #expect(log.append(kind: 1, payload: [1]) == .written(3), "the number is not used up by a refusal")
        #expect(try Self.read(log.path).records.map(\.sequence) == [2, 3])
        log.release(through: 0)
        #expect(try Self.read(log.path).releasedThrough == 1, "a release never goes back")
        log.close()
        #expect(log.append(kind: 1, payload: [1]) == .closed)
        #expect(try Self.read(log.path).records.map(\.sequence) == [2, 3], "the file stays for the next launch")
    }

    @Test("a log made again over an old one starts empty: stale records of another run are never read as this one's")
    func madeAgainStartsEmpty() throws {
        let directory = try TemporaryDirectory.made()
        defer { directory.remove() }
        let path = directory.path + "/intake.log"
        var failure: String?
        var first = try #require(IntakeLogFile.create(at: path, slotCount: 8, firstSequence: 1, failure: &failure))
        _ = first.append(kind: 1, payload: [1, 2, 3])
        first.close()
        var second = try #require(IntakeLogFile.create(at: path, slotCount: 8, firstSequence: 50, failure: &failure))
        defer { second.close() }
        #expect(try Self.read(path).records.isEmpty)
        #expect(second.append(kind: 1, payload: [4]) == .written(50))
    }

    @Test("no log where the file cannot be made: a missing folder, or a link planted at its name (never followed); the failure names the step")
    func cannotBeMade() throws {
        let directory = try TemporaryDirectory.made()
        defer { directory.remove() }
        var failure: String?
        #expect(IntakeLogFile.create(at: directory.path + "/missing/intake.log", slotCount: 8, firstSequence: 1, failure: &failure) == nil)
        #expect(failure?.hasPrefix("open: errno") == true, "\(failure ?? "")")
        let target = directory.path + "/elsewhere"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/intake.log", withDestinationPath: target)
        failure = nil
        #expect(IntakeLogFile.create(at: directory.path + "/intake.log", slotCount: 8, firstSequence: 1, failure: &failure) == nil)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me", "the link's target untouched")
    }
}
