// swift-tools-version: 6.2
// A package that depends on SimpleDataLogs the way an app does, built by scripts/consumer-check.sh
// with zero diagnostics allowed. Not part of the SimpleDataLogs package: its own manifest and its
// own build folder, so `swift test` at the repository root never sees it.
//
// One source file (Shared/AppAnalytics.swift, linked into each target), compiled in three
// configurations, so each checks the same calls:
// - Swift5Consumer: Swift 5 language mode, as an app that has not moved to Swift 6 builds it;
// - MainActorConsumer: Swift 6 language mode with the main actor as the default isolation
//   (SE-0466), the setting of Xcode 26's app template;
// - ApproachableConsumer: the same, plus the two upcoming features that Xcode's "Approachable
//   Concurrency" setting adds to Swift 6 mode (nonisolated async functions run on the caller's
//   actor; conformances may be isolated). They remove some diagnostics and could add others,
//   so both variants are built.
// The SDK is compiled once, with its own settings, for all three.
//
// ReadmeQuickStart is README.md's app quick start run for real: the body of its App's init(),
// extracted by scripts/readme-quick-start.py into ReadmeQuickStart/main.swift (generated, not in
// git), compiled as an app's target is in Xcode 26 (Swift 6, main actor by default) and run by
// scripts/consumer-check.sh against `sdl ingest`.
import PackageDescription

let sdk: Target.Dependency = .product(name: "SimpleDataLogs", package: "SimpleDataLogs")

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "SimpleDataLogs", path: "../.."),
    ],
    targets: [
        .target(
            name: "Swift5Consumer",
            dependencies: [sdk],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "MainActorConsumer",
            dependencies: [sdk],
            swiftSettings: [.swiftLanguageMode(.v6), .defaultIsolation(MainActor.self)]
        ),
        .target(
            name: "ApproachableConsumer",
            dependencies: [sdk],
            swiftSettings: [
                .swiftLanguageMode(.v6), .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"), .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        .executableTarget(
            name: "ReadmeQuickStart",
            dependencies: [sdk],
            path: "ReadmeQuickStart",
            swiftSettings: [.swiftLanguageMode(.v6), .defaultIsolation(MainActor.self)]
        ),
    ]
)
