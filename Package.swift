// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "FoodPin",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocalCloud", targets: ["LocalCloud"]),
        .library(name: "FoodPinCore", targets: ["FoodPinCore"]),
        .executable(name: "foodpin", targets: ["FoodPinTUI"]),
        .executable(name: "localcloud", targets: ["LocalCloudConsole"]),
        .executable(name: "localcloud-bench", targets: ["LocalCloudBenchmark"]),
        .executable(name: "foodpin-bench", targets: ["FoodPinBenchmark"]),
        .executable(name: "localcloud-stress", targets: ["LocalCloudStress"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // C libraries enter through system-library targets; variadic APIs through a shim.
        // ncursesw needs no flags; its pkg-config adds _XOPEN_SOURCE defines SwiftPM rejects.
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncursesw5-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CChafa", pkgConfig: "chafa", providers: [.apt(["libchafa-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"]),

        .target(
            name: "LocalCloud",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FoodPinCore",
            dependencies: [
                "LocalCloud", "CVipsShim", "CVips", "CChafa",
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: []
        ),
        .executableTarget(
            name: "FoodPinTUI",
            dependencies: [
                "FoodPinCore", "LocalCloud", "CNCurses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "LocalCloudConsole",
            dependencies: [
                "LocalCloud",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "LocalCloudBenchmark",
            dependencies: ["LocalCloud", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/LocalCloudBenchmark"
        ),
        .executableTarget(
            name: "FoodPinBenchmark",
            dependencies: ["FoodPinCore", "LocalCloud"],
            path: "Benchmarks/FoodPinBenchmark"
        ),
        // A child-process writer for the multi-process tests and reliability scripts.
        .executableTarget(
            name: "LocalCloudStress",
            dependencies: ["LocalCloud"]
        ),
        .testTarget(
            name: "LocalCloudTests",
            dependencies: ["LocalCloud", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "FoodPinCoreTests",
            dependencies: ["FoodPinCore", "LocalCloud"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
