// swift-tools-version: 6.2
import PackageDescription

// An app that adopts the container: it depends on the container package by path and uses only
// its public API. It declares its services in code (with a group), runs a scoped entry point
// whose graph was declared without `requirements:`, and overrides a service in its tests.
let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// SwiftPM names a path dependency after its folder, so find the folder the root package
// lives in (two levels up) instead of assuming the clone is called "main".
let rootPackage = Context.packageDirectory.split(separator: "/").dropLast(2).last.map(String.init) ?? "main"

let package = Package(
    name: "AppPackage",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(
            name: "NewsApp",
            dependencies: [.product(name: "Container", package: rootPackage)],
            swiftSettings: settings),
        .executableTarget(
            name: "news-app",
            dependencies: ["NewsApp", .product(name: "Container", package: rootPackage)],
            swiftSettings: settings),
        .testTarget(
            name: "NewsAppTests",
            dependencies: [
                "NewsApp",
                .product(name: "Container", package: rootPackage),
                .product(name: "ContainerTesting", package: rootPackage),
            ],
            swiftSettings: settings),
    ]
)
