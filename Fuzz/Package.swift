// swift-tools-version:6.1
import PackageDescription

/// libFuzzer harnesses for LocalCloud's parsers of hostile text, one executable per target.
///
/// Build (a scratch path of its own keeps the sanitized build away from the main one):
///
///     swift build --package-path Fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address
///
/// `scripts/fuzz.sh [SECONDS]` builds and runs them all. libFuzzer provides `main`: each harness
/// is parsed as a library and hands SwiftPM's entry point to `LLVMFuzzerRunDriver` (see FuzzDriver).
let harnesses: [(name: String, server: Bool)] = [
    ("FuzzPredicate", false),
    ("FuzzSchemaText", false),
    ("FuzzJSON", false),
    ("FuzzStoredFields", false),
    ("FuzzRequestBody", true),
    ("FuzzChangeToken", true),
    ("FuzzContinuationMarker", true),
    ("FuzzServerSentEvents", false),
]

let package = Package(
    name: "LocalCloudFuzz",
    platforms: [.macOS(.v15)],
    products: harnesses.map { .executable(name: $0.name, targets: [$0.name]) },
    dependencies: [.package(name: "FoodPin", path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
    ] + harnesses.map { harness in
        .executableTarget(
            name: harness.name,
            dependencies: ["FuzzDriver", .product(name: "LocalCloud", package: "FoodPin")]
                + (harness.server ? [.product(name: "LocalCloudServer", package: "FoodPin")] : []),
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    },
    swiftLanguageModes: [.v6]
)
