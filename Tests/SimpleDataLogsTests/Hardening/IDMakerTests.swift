import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// The package's root, found from this file's path: the nearest folder above it holding `Package.swift`.
private let packageRoot: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        folder = folder.deletingLastPathComponent()
    }
    return folder
}()

@Suite("Hardening: ids stay unique with no file descriptor free", .stuckTestLimit, .skippedInFastLoop)
struct IDMakerTests {
    @Test("no code of the SDK or its commands calls Foundation's UUID(): every id comes from UniqueID or the event id generator")
    func noFoundationUUIDInSources() throws {
        var offenders: [String] = []
        for folder in ["Sources/SimpleDataLogs", "Sources/SimpleDataLogsTesting", "Sources/SDLCommands"] {
            let root = packageRoot.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    // Comments may name it (to say why it is not used); code may not.
                    let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                    if code.contains("UUID()") { offenders.append("\(folder)/\(url.lastPathComponent):\(number + 1)") }
                }
            }
        }
        #expect(offenders.isEmpty, "UUID() returns one fixed id when no descriptor is free; use UniqueID.random(): \(offenders)")
    }

    @Test("a UniqueID is a version-4 UUID with the RFC 9562 variant")
    func versionAndVariant() {
        var generator = SplitMix(seed: 7)
        for _ in 0..<100 {
            let id = UniqueID.random(using: &generator).uuid
            #expect(id.6 >> 4 == 4)
            #expect(id.8 >> 6 == 0b10)
        }
    }

    @Test("with every descriptor taken, 1,000 ids from UniqueID are 1,000 different ids (Foundation's UUID() gives one)", .tags(.processes))
    func distinctWithoutDescriptors() async throws {
        let output = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["descriptors-ids", "1000"])
            let output = child.readToEnd()
            _ = child.wait()
            return output
        }
        let exhausted = Self.number(after: "exhausted ", in: output)
        #expect(exhausted > 0, "the child really ran out of descriptors: \(output)")
        #expect(Self.number(after: "distinct ", in: output) == 1_000, "\(output)")
    }

    @Test("the whole path out of descriptors: batches sealed with none free have distinct ids, and an ingest that deduplicates batch ids counts every event", .tags(.processes, .sockets))
    func wholePathWithoutDescriptors() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path
        let endpoint = ingest.endpoint.absoluteString
        let output = try await onOwnThread {
            let child = try ChildProcess("OutboxCrashChild", ["descriptors-path", path, "300"], environment: ["SDL_TEST_ENDPOINT": endpoint])
            let output = child.readToEnd()
            _ = child.wait()
            return output
        }
        #expect(Self.number(after: "exhausted ", in: output) > 0, "the child really ran out of descriptors: \(output)")
        let summary = ingest.summary
        #expect(summary.accepted == 300, "the ingest counted every event: \(summary), child: \(output)")
        #expect(summary.replayedBatches == 0, "no batch shared another's SDL-Batch-ID")
        let batchIDs = ingest.requests.compactMap(\.batchID)
        #expect(Set(batchIDs).count == 6, "six batches of 50, six ids: \(Set(batchIDs))")
        #expect(output.contains("delivered 300"), "\(output)")
    }

    /// The integer after `prefix` on the first line that starts with it, or -1.
    private static func number(after prefix: String, in output: String) -> Int {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count).prefix { $0.isNumber }) } ?? -1
    }
}

/// A seeded generator (SplitMix64), so the bit layout is checked on known input.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
