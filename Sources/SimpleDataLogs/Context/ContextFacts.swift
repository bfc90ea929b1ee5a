/// What the system says about the app and the device, as plain values: the input of the
/// automatic-context rule (``properties(for:)``), so Linux tests pass their own facts.
package struct ContextFacts: Sendable, Equatable {
    package var appVersion: String?
    package var appBuild: String?
    package var osName: String?
    package var osVersion: String?
    package var deviceModel: String?
    package var locale: String?
    package var buildKind: BuildKind?

    /// Creates the facts; any may be missing.
    package init(
        appVersion: String? = nil, appBuild: String? = nil, osName: String? = nil, osVersion: String? = nil,
        deviceModel: String? = nil, locale: String? = nil, buildKind: BuildKind? = nil
    ) {
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.osName = osName
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.buildKind = buildKind
    }

    /// The properties the options ask for. A fact that is missing, blank, or longer than a
    /// property value may be is left out: a wrong value would be worse than none, and one the
    /// ingest refuses would cost the event.
    /// - Parameter options: What the app asked for.
    /// - Returns: The properties, each a string.
    package func properties(for options: AutomaticContext) -> [String: PropertyValue] {
        var properties: [String: PropertyValue] = [:]
        func add(_ key: String, _ value: String?) {
            guard let value = value?.trimmingWhitespace(), !value.isEmpty,
                  value.utf8.count <= EventLimits.maxStringValueBytes else { return }
            properties[key] = .string(value)
        }
        if options.contains(.appVersion) {
            add("app_version", appVersion)
            add("app_build", appBuild)
        }
        if options.contains(.operatingSystem) {
            add("os_name", osName)
            add("os_version", osVersion)
        }
        if options.contains(.deviceModel) { add("device_model", deviceModel) }
        if options.contains(.locale) { add("locale", locale) }
        if options.contains(.buildKind) { add("build_kind", buildKind?.rawValue) }
        return properties
    }
}

/// How the app was built and handed out, for `build_kind`.
package enum BuildKind: String, Sendable, Equatable {
    case debug, testflight, release

    /// The rule: a debug build is `debug` wherever it runs; otherwise a sandbox App Store receipt
    /// (what TestFlight installs carry) makes `testflight`; anything else is `release`.
    /// - Parameters:
    ///   - isDebugBuild: Whether the SDK was compiled with `DEBUG`.
    ///   - hasSandboxReceipt: Whether the app's bundle holds a sandbox App Store receipt.
    /// - Returns: The kind.
    package static func of(isDebugBuild: Bool, hasSandboxReceipt: Bool) -> BuildKind {
        if isDebugBuild { return .debug }
        return hasSandboxReceipt ? .testflight : .release
    }
}

/// Where the facts come from: the system by default, fixed values in tests.
package struct ContextSource: Sendable {
    /// Reads the facts. Called once per client, on the identity stage's thread (the SDK's own),
    /// because some facts are files (the receipt, Linux's DMI product name).
    package var read: @Sendable () -> ContextFacts

    /// A source that reads with `read`.
    package init(read: @escaping @Sendable () -> ContextFacts) { self.read = read }

    /// A source of fixed facts.
    package static func fixed(_ facts: ContextFacts) -> ContextSource { ContextSource { facts } }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace || first.isNewline { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace || last.isNewline { scalars.removeLast() }
        return String(scalars)
    }
}
