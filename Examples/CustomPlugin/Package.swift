// swift-tools-version: 6.2
import PackageDescription

// An out-of-tree plugin: it depends on the container package by path and uses only its
// public API (no @testable imports, no internals).
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
    name: "CustomPlugin",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "CustomPlugin",
            dependencies: [
                .product(name: "Container", package: rootPackage),
                .product(name: "Plugins", package: rootPackage),
                .product(name: "ContainerTrace", package: rootPackage),
            ],
            swiftSettings: settings)
    ]
)
