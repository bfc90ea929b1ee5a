import Foundation
import Testing
import SimpleDataLogs

/// The repository's root, found from this file's path (tests run from a checkout): the nearest
/// folder above it that holds `Package.swift`, so moving this file between test folders cannot
/// point it somewhere else.
private let repositoryRoot: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        folder = folder.deletingLastPathComponent()
    }
    return folder
}()

/// Every Swift source of the libraries, concatenated with file names.
private func librarySources() throws -> [(name: String, text: String)] {
    let sources = repositoryRoot.appendingPathComponent("Sources")
    let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    var files: [(String, String)] = []
    while let url = enumerator?.nextObject() as? URL {
        guard url.pathExtension == "swift", url.path.contains("/Sources/SimpleDataLogs") else { continue }
        files.append((url.lastPathComponent, try String(contentsOf: url, encoding: .utf8)))
    }
    return files
}

@Suite("Package hygiene", .stuckTestLimit)
struct PackageHygieneTests {
    /// Required-reason API categories and the calls that put code in each.
    static let requiredReasonAPIs: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": ["stat(", "lstat(", "fstat(", "getattrlist", "creationDate", "modificationDate", "ModificationDate"],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time"],
        "NSPrivacyAccessedAPICategoryDiskSpace": ["volumeAvailableCapacity", "statfs", "statvfs", "systemFreeSize"],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
    ]

    @Test("the privacy manifest parses and declares what the product doc promises and the code really uses")
    func privacyManifest() throws {
        let url = repositoryRoot.appendingPathComponent("Sources/SimpleDataLogs/PrivacyInfo.xcprivacy")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        let collected = try #require(plist["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        #expect(Set(collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String }) == [
            "NSPrivacyCollectedDataTypeProductInteraction", "NSPrivacyCollectedDataTypeDeviceID", "NSPrivacyCollectedDataTypeCrashData",
            // The automatic context (opt-in): app version and build, OS, device model, locale, build kind.
            "NSPrivacyCollectedDataTypeOtherDataTypes",
        ])
        #expect(collected.allSatisfy { $0["NSPrivacyCollectedDataTypeLinked"] as? Bool == false && $0["NSPrivacyCollectedDataTypeTracking"] as? Bool == false })

        let declared = Set((plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? []).compactMap { $0["NSPrivacyAccessedAPIType"] as? String })
        let code = try librarySources().map(\.text).joined(separator: "\n")
        let used = Set(Self.requiredReasonAPIs.filter { _, calls in calls.contains { code.contains($0) } }.keys)
        #expect(declared == used, "declared \(declared.sorted()), used \(used.sorted())")
    }

    @Test("the SDK never touches Bundle.module, so a server image without the resource bundle still runs")
    func noBundleModule() throws {
        let offenders = try librarySources().filter { $0.text.contains("Bundle.module") }.map(\.name)
        #expect(offenders.isEmpty)
    }

    @Test("the version constant is 0.4.0")
    func version() {
        #expect(SimpleDataLogsVersion.current == "0.4.0")
    }
}
