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
        // Events to an OpenTelemetry Collector as OTLP/HTTP logs: a transport, in a product of
        // its own so that apps that do not use it never link it.
        .library(name: "SimpleDataLogsOTLP", targets: ["SimpleDataLogsOTLP"]),
        .executable(name: "sdl", targets: ["sdl"]),
    ],
    targets: [
        // zlib, for gzip request bodies and the journal's checksums: on every Linux machine that
        // has the Swift toolchain, and in Apple's SDKs. Not a package dependency.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // The fatal-signal handler, in C because it must be async-signal-safe (see its header).
        // Part of this package, not a dependency.
        .target(
            name: "CSignals",
            cSettings: [.enableWarning("all"), .enableWarning("extra"), .treatAllWarnings(as: .error)]
        ),
        // One release store, for the intake log's marker (see its header): Swift's own atomics
        // need macOS 15 and iOS 18. Part of this package, not a dependency.
        .target(
            name: "CMemoryOrder",
            cSettings: [.enableWarning("all"), .enableWarning("extra"), .treatAllWarnings(as: .error)]
        ),
        .target(
            name: "SimpleDataLogs",
            dependencies: ["CZlib", "CSignals", "CMemoryOrder"],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strictSettings
        ),
        // The one strict JSON reader the products below share (the SDK itself only writes JSON).
        // Not a product: it comes with the products that depend on it.
        .target(name: "SDLJSON", swiftSettings: strictSettings),
        // The OTLP/HTTP logs transport: the SDK, its JSON reader and zlib (for the uploader's gzip
        // bodies) only.
        .target(
            name: "SimpleDataLogsOTLP",
            dependencies: ["SimpleDataLogs", "SDLJSON", "CZlib"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SimpleDataLogsTesting",
            dependencies: ["SimpleDataLogs", "SDLJSON", "CZlib"],
            swiftSettings: strictSettings
        ),
        .target(name: "SDLCommands", dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting"], swiftSettings: strictSettings),
        .executableTarget(
            name: "sdl",
            dependencies: ["SDLCommands"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SimpleDataLogsBenchmarks",
            dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting", "SimpleDataLogsOTLP"],
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
        // A child process for the crash-capture tests: installs the fatal-signal recorder (or
        // not, as the control) and crashes in the way it is told. Not a product.
        .executableTarget(name: "CrashChild", dependencies: ["SimpleDataLogs"], path: "Tests/CrashChild", swiftSettings: strictSettings),
        // Examples that compile in CI: a server-style request loop and a command-line tool.
        .executableTarget(name: "ExampleServer", dependencies: ["SimpleDataLogs"], path: "Sources/Examples/Server", swiftSettings: strictSettings),
        // README's SwiftUI app: against SwiftUI on Apple platforms, against stand-ins on Linux.
        .executableTarget(name: "ExampleSwiftUIApp", dependencies: ["SimpleDataLogs"], path: "Sources/Examples/SwiftUIApp", swiftSettings: strictSettings),
        .executableTarget(name: "ExampleCommandLineTool", dependencies: ["SimpleDataLogs"], path: "Sources/Examples/CommandLineTool", swiftSettings: strictSettings),
        // The reliability suite: kills a real tracking process with SIGKILL again and again
        // against a flapping local ingest, and counts what arrives. `swift run -c release
        // reliability --kills 1000`. Not a library product.
        .executableTarget(
            name: "reliability",
            dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting"],
            path: "Tests/Reliability",
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        // libFuzzer targets, built by scripts/fuzz.sh with `-Xswiftc -sanitize=fuzzer,address
        // -Xswiftc -parse-as-library -Xswiftc -DSDL_LIBFUZZER`. A plain build links an empty
        // program; the fuzz build compiles the `<Target>_main` that SwiftPM's link step names and
        // that hands over to libFuzzer's driver.
        .executableTarget(name: "FuzzJournalRecord", dependencies: ["SimpleDataLogs"], path: "Tests/Fuzz/FuzzJournalRecord", swiftSettings: strictSettings),
        .executableTarget(name: "FuzzBatchFile", dependencies: ["SimpleDataLogs"], path: "Tests/Fuzz/FuzzBatchFile", swiftSettings: strictSettings),
        .executableTarget(name: "FuzzIntakeLog", dependencies: ["SimpleDataLogs"], path: "Tests/Fuzz/FuzzIntakeLog", swiftSettings: strictSettings),
        .executableTarget(name: "FuzzIngestRequest", dependencies: ["SimpleDataLogsTesting"], path: "Tests/Fuzz/FuzzIngestRequest", swiftSettings: strictSettings),
        .testTarget(
            name: "SimpleDataLogsTests",
            dependencies: ["SimpleDataLogs", "SimpleDataLogsTesting", "SimpleDataLogsOTLP", "SDLJSON", "CZlib", "CSignals", "SDLCommands"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
