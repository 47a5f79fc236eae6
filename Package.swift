// swift-tools-version: 6.2
import PackageDescription

/// Upcoming features that catch mistakes, on every target (see STYLE.md rule 10).
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ServiceContainer",
    // The minimums of `Synchronization.Mutex` and `Atomic`, which the runtime is built on. Linux needs
    // no entry: every Linux with a Swift 6 toolchain is supported (and the one CI runs on).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Container", targets: ["Container"]),
        .library(name: "Plugins", targets: ["Plugins"]),
        .library(name: "ContainerTrace", targets: ["ContainerTrace"]),
        .library(name: "ContainerTesting", targets: ["ContainerTesting"]),
        .executable(name: "container-demo", targets: ["container-demo"]),
        .executable(name: "container-bench", targets: ["container-bench"]),
    ],
    targets: [
        // The runtime: graph, scheduler, coordinator, snapshot, trace events.
        .target(name: "Container", swiftSettings: strictSettings),
        // What a trace becomes: JSON Lines, the timeline, DOT, Mermaid, Chrome trace JSON (Perfetto).
        .target(name: "ContainerTrace", dependencies: ["Container"], swiftSettings: strictSettings),
        // The test kit: gates, counters, deadlines, fake providers, a trace watcher with expectations,
        // the trace invariants. Used by the tests, the demo and the benchmark; no Swift Testing inside.
        .target(name: "ContainerTesting", dependencies: ["Container"], swiftSettings: strictSettings),
        // The system SQLite library where no SDK ships it (Debian: libsqlite3-dev). Apple platforms
        // use the SDK's own `SQLite3` module instead: no Homebrew, no pkg-config.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Standard providers, the generic deep-link entry point, typed options and the config-file loader.
        .target(
            name: "Plugins",
            dependencies: [
                "Container",
                .target(name: "CSQLite", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])),
            ],
            swiftSettings: strictSettings),
        // The demo as a library, so tests can run its scenarios in-process; with the demo's own
        // plugins (entry points, scoped providers, schema) that the configs in Configs/ name.
        .target(
            name: "ContainerDemoKit", dependencies: ["Container", "ContainerTesting", "ContainerTrace", "Plugins"],
            swiftSettings: strictSettings),
        .executableTarget(name: "container-demo", dependencies: ["ContainerDemoKit"], swiftSettings: strictSettings),
        .executableTarget(
            name: "container-bench", dependencies: ["Container", "ContainerDemoKit", "ContainerTesting", "Plugins"],
            swiftSettings: strictSettings),
        // Swift Testing glue shared by the test targets (the JSON Lines and Chrome trace checks); not a product.
        .target(
            name: "TestSupport", dependencies: ["Container", "ContainerTesting"], path: "Tests/TestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "ContainerTests", dependencies: ["Container", "ContainerTesting", "TestSupport"],
            swiftSettings: strictSettings),
        // ContainerDemoKit for the demo's plugins: the tests that run `Configs/app.json` load it with them.
        .testTarget(
            name: "PluginsTests",
            dependencies: ["Plugins", "Container", "ContainerDemoKit", "ContainerTesting", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "ContainerDemoKitTests",
            dependencies: [
                "ContainerDemoKit", "ContainerTrace", "Plugins", "Container", "ContainerTesting", "TestSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "ContainerTraceTests",
            dependencies: ["ContainerTrace", "Container", "ContainerTesting", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "ContainerTestingTests", dependencies: ["ContainerTesting", "Container", "TestSupport"],
            swiftSettings: strictSettings),
    ]
)
