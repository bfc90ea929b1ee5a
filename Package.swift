// swift-tools-version: 6.2
import PackageDescription

/// Settings every target shares: strict Swift 6, and warnings that fail the build.
let strictSettings: [SwiftSetting] = [
    // `any P` spelled out, so the cost of an existential is visible where it is paid.
    .enableUpcomingFeature("ExistentialAny"),
    // A file sees only the modules it imports itself, so dependencies stay honest.
    .enableUpcomingFeature("MemberImportVisibility"),
    // Imports are internal unless marked `public import`, so no dependency leaks into our API.
    .enableUpcomingFeature("InternalImportsByDefault"),
    // One build serves `swift build` and `swift test`; not an unsafe flag, so consumers can depend on us.
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "SimpleDataLogs",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SimpleDataLogs", targets: ["SimpleDataLogs"]),
        .library(name: "SimpleDataLogsTesting", targets: ["SimpleDataLogsTesting"]),
        .executable(name: "sdl", targets: ["sdl"]),
    ],
    targets: [
        // zlib, for gzip request bodies and the journal's checksums: on every Linux machine that
        // has the Swift toolchain, and in Apple's SDKs. Not a package dependency.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(
            name: "SimpleDataLogs",
            dependencies: ["CZlib"],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SimpleDataLogsTesting",
            dependencies: ["SimpleDataLogs", "CZlib"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sdl",
            dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SimpleDataLogsBenchmarks",
            dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting"],
            path: "Benchmarks",
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        // A deliberately racy program: the ThreadSanitizer run proves it reports a real race in
        // code shaped like ours (see RaceCanaryTests). Not a product; users never see it.
        .executableTarget(
            name: "RaceCanary",
            path: "Tests/RaceCanary",
            swiftSettings: strictSettings
        ),
        // A child process for the crash tests: tracks into an outbox and is killed with SIGKILL
        // (by itself at a sealing step, or by the test). Not a product.
        .executableTarget(
            name: "OutboxCrashChild",
            dependencies: ["SimpleDataLogs"],
            path: "Tests/OutboxCrashChild",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SimpleDataLogsTests",
            dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting", "CZlib"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
