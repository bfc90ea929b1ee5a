#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension ContextSource {
    /// The facts as this process's system gives them: the main bundle's Info.plist, the OS name
    /// and version the `User-Agent` carries, the hardware model, the current locale, the build.
    package static let system = ContextSource {
        let info = Bundle.main.infoDictionary ?? [:]
        let system = UploadRequestBuilder.currentOperatingSystem()
        return ContextFacts(
            appVersion: info["CFBundleShortVersionString"] as? String,
            appBuild: info["CFBundleVersion"] as? String,
            osName: system.name,
            osVersion: system.version,
            deviceModel: hardwareModel(),
            locale: Locale.current.identifier,
            buildKind: BuildKind.of(isDebugBuild: isDebugBuild, hasSandboxReceipt: hasSandboxReceipt())
        )
    }

    /// Whether the SDK was compiled for debugging; Xcode builds a package in its app's
    /// configuration, so this is the app's too.
    private static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// Whether the bundle holds a sandbox App Store receipt, as TestFlight installs on iOS do. Read
    /// from where the receipt lies (`StoreKit/sandboxReceipt`) rather than through
    /// `appStoreReceiptURL`, which is deprecated from iOS 18. Elsewhere `false`: a Mac build is
    /// `debug` or `release`.
    private static func hasSandboxReceipt() -> Bool {
        #if os(iOS)
        return FileManager.default.fileExists(atPath: Bundle.main.bundlePath + "/StoreKit/sandboxReceipt")
        #else
        return false
        #endif
    }

    /// The hardware model identifier: `hw.model` on a Mac (`Mac14,2`); on iOS the machine name
    /// (`iPhone15,2`), or in the Simulator the model it simulates; on Linux the DMI product
    /// name, when the machine has one.
    private static func hardwareModel() -> String? {
        #if os(macOS)
        var size = 0
        guard sysctlbyname("hw.model", nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var bytes = [CChar](repeating: 0, count: size)
        guard sysctlbyname("hw.model", &bytes, &size, nil, 0) == 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)
        #elseif os(iOS)
        if let simulated = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] { return simulated }
        var name = utsname()
        guard uname(&name) == 0 else { return nil }
        return withUnsafeBytes(of: &name.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        #else
        // Not `uname`'s machine, which on Linux is the architecture (x86_64), not a model.
        let text = try? String(contentsOfFile: "/sys/devices/virtual/dmi/id/product_name", encoding: .utf8)
        return text?.split(whereSeparator: \.isNewline).first.map(String.init)
        #endif
    }
}
