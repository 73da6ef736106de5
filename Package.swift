// swift-tools-version:6.1
import PackageDescription

/// The include paths `pkg-config --cflags vips chafa` gives on Debian and Ubuntu (GLib's
/// `glibconfig.h` and chafa's `chafaconfig.h` sit in the multiarch library directory).
let imagingHeaderFlags = ["/usr/include/glib-2.0", "/usr/include/chafa"].flatMap { ["-isystem", $0] }
    + ["x86_64-linux-gnu", "aarch64-linux-gnu"].flatMap { arch in
        ["/usr/lib/\(arch)/glib-2.0/include", "/usr/lib/\(arch)/chafa/include"].flatMap { ["-isystem", $0] }
    }

let package = Package(
    name: "FoodPin",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocalCloud", targets: ["LocalCloud"]),
        .library(name: "FoodPinCore", targets: ["FoodPinCore"]),
        // The server's adapter as a library, for the fuzz harnesses in Fuzz/ (a separate package).
        .library(name: "LocalCloudServer", targets: ["LocalCloudServer"]),
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
        // The server (LocalCloudServer, linked by `localcloud` only; `foodpin` never links these).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // P-256 request signatures and HMAC push tokens in the server (postgres-nio needs it too).
        // Not LocalCloud: its SHA-256 is the system's libcrypto (CLibCrypto), so `foodpin` builds no BoringSSL.
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The web console's server-rendered HTML (LocalCloudServer only).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // PostgreSQL (the record store and the server state), linked by `localcloud` and tests only; never by `foodpin`.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Tests call the server with a real HTTP client.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // C libraries enter through system-library targets; variadic APIs through a shim.
        // ncursesw needs no flags; its pkg-config adds _XOPEN_SOURCE defines SwiftPM rejects.
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncursesw5-dev"])]),
        // libvips and libchafa are not linked: the shim opens them with dlopen at the first image,
        // so `foodpin --version` and `foodpin list` do not load their ~120 shared libraries.
        // Their headers (libvips-dev, libchafa-dev) type every function the shim resolves.
        .target(
            name: "CVipsShim",
            cSettings: [.unsafeFlags(imagingHeaderFlags)],
            linkerSettings: [.linkedLibrary("dl")]
        ),

        // libcurl, for the remote store's HTTP: opened with dlopen at the first request, so a process
        // that never talks to a server does not load it. libcurl4-openssl-dev types its functions.
        .target(
            name: "CCurlShim",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // The system OpenSSL's libcrypto, for SHA-256: installed with the system, nothing to compile.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        .target(
            name: "LocalCloud",
            dependencies: [
                "CCurlShim", "CLibCrypto",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "FoodPinCore",
            dependencies: [
                "LocalCloud", "CVipsShim",
            ]
        ),
        // The options both CLIs share, and their one mapping to a Container.Configuration.
        // Only LocalCloud and ArgumentParser: `foodpin` must not link the server's packages.
        .target(
            name: "LocalCloudCLI",
            dependencies: ["LocalCloud", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "FoodPinTUI",
            dependencies: [
                "FoodPinCore", "LocalCloud", "LocalCloudCLI", "CNCurses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `localcloud serve`: CloudKit Web Services over Hummingbird.
        .target(
            name: "LocalCloudServer",
            dependencies: [
                "LocalCloud",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The console's templates, stylesheet and script, compiled into the binary: nothing to
            // install beside it and nothing fetched at run time.
            resources: [
                .embedInCode("Console/Resources/layout.mustache"),
                .embedInCode("Console/Resources/signin.mustache"),
                .embedInCode("Console/Resources/overview.mustache"),
                .embedInCode("Console/Resources/schema.mustache"),
                .embedInCode("Console/Resources/deploy.mustache"),
                .embedInCode("Console/Resources/records.mustache"),
                .embedInCode("Console/Resources/record.mustache"),
                .embedInCode("Console/Resources/conflict.mustache"),
                .embedInCode("Console/Resources/zones.mustache"),
                .embedInCode("Console/Resources/people.mustache"),
                .embedInCode("Console/Resources/logs.mustache"),
                .embedInCode("Console/Resources/telemetry.mustache"),
                .embedInCode("Console/Resources/audit.mustache"),
                .embedInCode("Console/Resources/message.mustache"),
                .embedInCode("Console/Resources/console.css"),
                .embedInCode("Console/Resources/console.js"),
            ]
        ),
        // LocalCloud on PostgreSQL: a store for several `localcloud serve` nodes sharing one database.
        .target(
            name: "LocalCloudPostgres",
            dependencies: [
                "LocalCloud",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // TLS to the database (sslmode, sslrootcert, sslcert, sslkey).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What `localcloud serve` keeps beside the records, on PostgreSQL for several nodes: identity,
        // console admins and sessions, upload grants, the push key and webcourier cursors. Its own
        // target, so the PostgreSQL store does not depend on the server.
        .target(
            name: "LocalCloudServerPostgres",
            dependencies: [
                "LocalCloud", "LocalCloudServer", "LocalCloudPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // SymmetricKey for the push tokens' HMAC key.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "LocalCloudConsole",
            dependencies: [
                "LocalCloud", "LocalCloudServer", "LocalCloudCLI", "LocalCloudPostgres", "LocalCloudServerPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "LocalCloudBenchmark",
            dependencies: [
                "LocalCloud", "LocalCloudServer", "LocalCloudPostgres", "LocalCloudServerPostgres", .product(name: "GRDB", package: "GRDB.swift"),
                // `localcloud-bench push` calls the server over loopback.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
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
            dependencies: [
                "LocalCloud",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LocalCloudServerTests",
            dependencies: [
                "LocalCloudServer", "LocalCloud",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // A private PostgreSQL cluster (initdb + pg_ctl on a free port) for the tests that need one.
        .target(
            name: "PostgresTestSupport",
            dependencies: ["LocalCloudPostgres", "LocalCloudServerPostgres"],
            path: "Tests/PostgresTestSupport"
        ),
        .testTarget(
            name: "LocalCloudPostgresTests",
            dependencies: [
                "LocalCloudPostgres", "LocalCloudServerPostgres", "LocalCloud", "LocalCloudServer", "PostgresTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // A real `localcloud serve` in the test process, through the server's package API only.
        .target(
            name: "LocalCloudServerTesting",
            dependencies: ["LocalCloud", "LocalCloudServer", .product(name: "Logging", package: "swift-log")],
            path: "Tests/LocalCloudServerTesting"
        ),
        // The remote store over real HTTP: an in-process `localcloud serve` and raw sockets.
        .testTarget(
            name: "LocalCloudRemoteTests",
            dependencies: ["LocalCloud", "LocalCloudServerTesting"]
        ),
        .testTarget(
            name: "LocalCloudCLITests",
            dependencies: [
                "LocalCloudCLI", "LocalCloud",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // One suite of LocalCloud's behaviour, run with the same assertions on every store.
        .testTarget(
            name: "LocalCloudConformanceTests",
            dependencies: ["LocalCloud", "LocalCloudServerTesting", "LocalCloudPostgres", "PostgresTestSupport"]
        ),
        .testTarget(
            name: "FoodPinCoreTests",
            // A real `localcloud serve` for the remote catch-up tests.
            dependencies: ["FoodPinCore", "LocalCloud", "LocalCloudServerTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
