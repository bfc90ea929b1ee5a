import Foundation

/// What kind of process the SDK runs in, which decides what `configure` does beyond the
/// platform-neutral core: the app lifecycle and the warning about a secret key, only in an app.
///
/// Decided from the main bundle alone (its path and Info.plist), by a rule Linux compiles and
/// tests, because the compile-time platform says too little: a command-line tool or a server on a
/// Mac imports AppKit as an app does, and an app extension (a widget, a share extension) imports
/// UIKit but has no `UIApplication` to observe, and may not even name it.
package enum ProcessKind: Sendable, Equatable, CustomStringConvertible {
    /// An app: a bundle of package type `APPL` (`.app`). The only kind the lifecycle adapters
    /// attach to.
    case app
    /// An app extension: an `.appex` bundle, or one whose Info.plist declares an extension point
    /// (`NSExtension`, or `EXAppExtensionAttributes` for ExtensionKit). It ships inside an app,
    /// to the same devices, but has no app lifecycle of its own.
    case appExtension
    /// Anything else: a command-line tool, a server, a daemon, a test runner, any process on
    /// Linux.
    case other

    /// The facts of the main bundle that the rule reads, as plain values so tests pass their own.
    package struct BundleFacts: Sendable, Equatable {
        /// The bundle's path (`Bundle.main.bundlePath`); a tool without a bundle has its
        /// executable's folder here.
        package var path: String
        /// `CFBundlePackageType` from the Info.plist, if any (`APPL` for apps, `XPC!` for
        /// extensions).
        package var packageType: String?
        /// The Info.plist's top-level keys.
        package var infoKeys: Set<String>

        /// Creates the facts.
        package init(path: String, packageType: String? = nil, infoKeys: Set<String> = []) {
            self.path = path
            self.packageType = packageType
            self.infoKeys = infoKeys
        }

        /// The main bundle's facts, read once per call (Foundation caches the Info.plist).
        package static var main: BundleFacts {
            let bundle = Bundle.main
            let info = bundle.infoDictionary ?? [:]
            return BundleFacts(path: bundle.bundlePath, packageType: info["CFBundlePackageType"] as? String, infoKeys: Set(info.keys))
        }
    }

    /// The Info.plist keys that declare an app extension.
    package static let extensionKeys: Set<String> = ["NSExtension", "EXAppExtensionAttributes"]

    /// The rule. An extension is recognized first: its bundle lives inside an app's
    /// (`App.app/PlugIns/Widget.appex`), so a test on the path for `.app` alone would call it an
    /// app.
    /// - Parameter bundle: The main bundle's facts.
    /// - Returns: The process's kind.
    package static func of(_ bundle: BundleFacts) -> ProcessKind {
        let path = bundle.path.hasSuffix("/") ? String(bundle.path.dropLast()) : bundle.path
        if path.hasSuffix(".appex") || !bundle.infoKeys.isDisjoint(with: extensionKeys) {
            return .appExtension
        }
        if bundle.packageType == "APPL" || path.hasSuffix(".app") {
            return .app
        }
        return .other
    }

    /// This process's kind, from the main bundle.
    package static var current: ProcessKind { of(.main) }

    /// Whether `configure` attaches the app lifecycle (activation, background, termination,
    /// sleep): only in an app. An extension has no `UIApplication` (its host's life is not its
    /// own), and a tool or server on a Mac has no `NSApplication` running: observing one would
    /// start AppKit in a process that never asked for it.
    package var attachesAppLifecycle: Bool { self == .app }

    /// Whether a secret key is worth a warning: in an app, which ships to people's devices,
    /// where anyone can read the key out of the binary. A command-line tool or a server keeps its
    /// key on machines its owner runs. An extension does not warn: it ships inside its app, whose
    /// own `configure` (with the same key, as the App Group recipe has it) says it once, not
    /// once per widget refresh.
    package var warnsAboutSecretKey: Bool { self == .app }

    /// The kind as the log line names it.
    package var description: String {
        switch self {
        case .app: "an app"
        case .appExtension: "an app extension"
        case .other: "a process that is not an app (a tool or a server)"
        }
    }
}
