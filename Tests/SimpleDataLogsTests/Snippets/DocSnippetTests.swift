import Foundation
import Testing

/// Every Swift code block of README.md and of the DocC articles must appear, line for line, in a
/// file that compiles: the snippet files in this folder or the example targets. A sample edited
/// in the docs but not here (or the other way round) fails this test, so what a user pastes is
/// what CI compiled.
///
/// Compared line by line with surrounding spaces trimmed, blank lines and `import` lines left
/// out (the snippet files import what the samples name). Package manifest fragments
/// (`dependencies: [ .package(…) ]`) are the one exception: a manifest cannot be compiled inside a
/// test target, and `PackageHygieneTests` covers the manifest itself.
@Suite("Docs: every code sample compiles", .stuckTestLimit)
struct DocSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized

    static let documents = ["README.md"] + (try! FileManager.default.contentsOfDirectory(
        atPath: root.appendingPathComponent("Sources/SimpleDataLogs/SimpleDataLogs.docc").path
    )).filter { $0.hasSuffix(".md") }.sorted().map { "Sources/SimpleDataLogs/SimpleDataLogs.docc/" + $0 }

    /// The Swift blocks of one Markdown file, each as its comparable lines.
    static func blocks(in path: String) throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```swift") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append(current!)
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return blocks.map(comparable).filter { !$0.isEmpty && !($0.first?.hasPrefix("dependencies:") ?? false) }
    }

    static func comparable(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// The compiled sources the samples may live in.
    static func compiledSources() throws -> [[String]] {
        var files: [String] = []
        for folder in ["Tests/SimpleDataLogsTests/Snippets", "Sources/Examples"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let name = enumerator?.nextObject() as? String {
                if name.hasSuffix(".swift") { files.append(folder + "/" + name) }
            }
        }
        return try files.map { try comparable(String(contentsOf: root.appendingPathComponent($0), encoding: .utf8).components(separatedBy: "\n")) }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in Array(haystack[start..<(start + needle.count)]) == needle }
    }

    @Test("each Swift block of README.md and the DocC articles is compiled in a snippet file or an example", arguments: documents)
    func samplesCompile(document: String) throws {
        let sources = try Self.compiledSources()
        for block in try Self.blocks(in: document) {
            #expect(sources.contains { Self.contains($0, block) }, "\(document): this sample is not in Tests/SimpleDataLogsTests/Snippets or Sources/Examples:\n\(block.joined(separator: "\n"))")
        }
    }

    @Test("the checker finds samples: the server article has its service-lifecycle, Hummingbird and Vapor code")
    func checkerSeesSamples() throws {
        let blocks = try Self.blocks(in: "Sources/SimpleDataLogs/SimpleDataLogs.docc/UsingItInAServer.md")
        #expect(blocks.count >= 8)
        #expect(blocks.contains { $0.contains("await client.run(until: { try? await gracefulShutdown() })") })
        #expect(!Self.contains(["a", "b", "c"], ["a", "c"]), "contiguous lines only")
    }
}
