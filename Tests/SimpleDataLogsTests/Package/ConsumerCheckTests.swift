import Foundation
import Testing
import SimpleDataLogs

/// The repository's root: the nearest folder above this file that holds `Package.swift`.
private let root: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        folder = folder.deletingLastPathComponent()
    }
    return folder
}()

private func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
}

/// The consumer check (`scripts/consumer-check.sh`, `Tests/Consumer`) builds in CI; these keep it
/// honest between builds: every configuration compiles the same app code, and that code reaches
/// for no escape hatch that would hide a diagnostic the API causes.
@Suite("Consumer check", .stuckTestLimit)
struct ConsumerCheckTests {
    static let consumer = "Tests/Consumer"
    static let shared = "Shared/AppAnalytics.swift"

    /// The targets the consumer's manifest declares, in order.
    static func manifestTargets() throws -> [String] {
        let manifest = try text(consumer + "/Package.swift")
        let pattern = try Regex(#"\.target\(\s*name: "([A-Za-z0-9]+)""#)
        return manifest.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) }
    }

    @Test("each consumer target holds only a link to the one shared file")
    func oneSourceForEveryConfiguration() throws {
        let targets = try Self.manifestTargets()
        #expect(targets.count == 3, "\(targets)")
        let sharedFile = root.appendingPathComponent(Self.consumer + "/" + Self.shared).resolvingSymlinksInPath()
        for target in targets {
            let folder = root.appendingPathComponent("\(Self.consumer)/Sources/\(target)")
            let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(entries == ["AppAnalytics.swift"], "\(target): \(entries)")
            let link = folder.appendingPathComponent("AppAnalytics.swift")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "../../" + Self.shared, "\(target)")
            #expect(link.resolvingSymlinksInPath() == sharedFile, "\(target)")
        }
    }

    @Test("the script requires every target the manifest declares to be compiled")
    func scriptNamesEveryTarget() throws {
        let script = try text("scripts/consumer-check.sh")
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("targets=(") })
        let named = line.dropFirst("targets=(".count).dropLast().split(separator: " ").map(String.init)
        #expect(named == (try Self.manifestTargets()))
    }

    @Test("README's app quick start is run by the check: the manifest builds it from the extracted init(), the script extracts it and judges the device id")
    func readmeQuickStartIsRun() throws {
        let manifest = try text(Self.consumer + "/Package.swift")
        #expect(manifest.contains(#".executableTarget(\#n            name: "ReadmeQuickStart""#))
        let script = try text("scripts/consumer-check.sh")
        #expect(script.contains("python3 scripts/readme-quick-start.py --self-test"))
        #expect(script.contains(#"grep -q '"device_id":"[^"]'"#))
        // The harness adds one event and one flush, and never a device id of its own.
        let harness = try text(Self.consumer + "/ReadmeQuickStart/Harness.swift")
        #expect(!harness.contains("setDeviceID") && !harness.contains("usesInstallID") && !harness.contains("deviceID:"))
        #expect(harness.components(separatedBy: "SimpleDataLogs.flush()").count == 2, "one flush")
        #expect(try text(".gitignore").contains("Tests/Consumer/ReadmeQuickStart/main.swift"), "the extracted file is never committed")
    }

    @Test("the consumer's code reaches for no escape hatch a real app would need only if the API were wrong")
    func noEscapeHatches() throws {
        let code = try text(Self.consumer + "/" + Self.shared).split(separator: "\n")
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        let hatches = ["nonisolated", "@preconcurrency", "@unchecked", "assumeIsolated", "@Sendable", "sending ", "@_"]
        let used = hatches.filter { code.contains($0) }
        #expect(used.isEmpty, "Tests/Consumer/\(Self.shared) uses \(used)")
        // The calls the check exists for are really made.
        let calls = [
            "SimpleDataLogs.configure(ingestKey:", "SimpleDataLogs.track(", "SimpleDataLogs.setDeviceID(",
            "SimpleDataLogs.setDefaultProperties(", "SimpleDataLogs.setEnabled(", "SimpleDataLogsClient(",
            ".configure(.server(ingestKey:", "deviceID: deviceID)", ".withDeviceID(", "await analytics.flush()",
            "await analytics.shutdown()", "deliveryReports(", ".counters", ": SimpleDataLogs.LogSink",
            // The SDK's backend types reached through the façade's namespace, beside the app's own.
            "protocol Transport", ": SimpleDataLogs.Transport", "SimpleDataLogs.LogLevel",
            // The product doc's call shapes.
            "at: step.completedAt, eventID: step.id)", "properties: [\"plan\": \"pro\"], eventID:", "SimpleDataLogs.trackScreen(",
            "await SimpleDataLogs.flushAndDisable()",
        ]
        let missing = calls.filter { !code.contains($0) }
        #expect(missing.isEmpty, "Tests/Consumer/\(Self.shared) no longer calls \(missing)")
    }
}

/// The files a release carries agree with each other and with the code.
@Suite("Release files", .stuckTestLimit)
struct ReleaseFilesTests {
    @Test("README's install line and CHANGELOG's newest section name the version the code carries")
    func versionsAgree() throws {
        let version = SimpleDataLogsVersion.current
        #expect(try text("README.md").contains(#".upToNextMinor(from: "\#(version)")"#))
        // One install line: GettingStarted shows the same dependency as the README.
        let line = #".package(url: "https://github.com/XKD-Labs/simpledatalogs-swift", .upToNextMinor(from: "\#(version)")),"#
        #expect(try text("README.md").contains(line))
        #expect(try text("Sources/SimpleDataLogs/SimpleDataLogs.docc/GettingStarted.md").contains(line), "GettingStarted's install line differs from README's")
        let changelog = try text("CHANGELOG.md")
        let newest = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## [") })
        #expect(newest.hasPrefix("## [\(version)]"), "\(newest)")
    }

    @Test("LICENSE is the Apache License 2.0 with its copyright line, and README says so")
    func license() throws {
        let license = try text("LICENSE")
        #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
        #expect(license.contains("END OF TERMS AND CONDITIONS"))
        #expect(license.contains("Copyright 2026 XKD Labs"))
        #expect(!license.contains("[yyyy]"))
        #expect(try text("README.md").contains("## License\n\nApache License 2.0; see [LICENSE](LICENSE)."))
    }
}
