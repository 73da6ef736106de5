import Foundation

/// Finds `Assets/`, which holds the sample restaurants (and the schema, `FoodPin.ckdb`).
///
/// ```swift
/// let assets = SampleAssets.locate()   // FOODPIN_ASSETS, the install prefix, the build's checkout, the source tree
/// ```
package enum SampleAssets {
    /// The samples' file, relative to `Assets/`.
    package static let restaurantsFile = "Restaurants/restaurants.json"

    /// Where `scripts/install.sh PREFIX` puts `Assets/`, relative to the prefix: `PREFIX/share/foodpin/Assets`
    /// beside `PREFIX/bin/foodpin`.
    package static let installedPath = "share/foodpin/Assets"

    /// `Assets/`, looked for in order:
    /// 1. the `FOODPIN_ASSETS` environment variable;
    /// 2. the install prefix: `<the executable's directory>/../share/foodpin/Assets`, for a
    ///    `foodpin` installed in `PREFIX/bin` (symlinks to it are followed);
    /// 3. the executable's directory and its parents (a SwiftPM build sits in `<package>/.build/…`);
    /// 4. the package this file was compiled from.
    ///
    /// - Returns: `nil` when none of them holds `Restaurants/restaurants.json`.
    package static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL? = executableURL(),
        sourceFile: String = #filePath
    ) -> URL? {
        if let path = environment["FOODPIN_ASSETS"], !path.isEmpty {
            let url = URL(fileURLWithPath: path, isDirectory: true)
            return holdsSamples(url) ? url : nil
        }
        var candidates: [URL] = []
        if let executable {
            let binDirectory = executable.resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(binDirectory.deletingLastPathComponent().appendingPathComponent(installedPath, isDirectory: true))
            var directory = binDirectory
            while directory.path != "/" {
                candidates.append(directory.appendingPathComponent("Assets", isDirectory: true))
                directory.deleteLastPathComponent()
            }
        }
        // Sources/FoodPinCore/Seeding/SampleAssets.swift → the package root.
        var root = URL(fileURLWithPath: sourceFile)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        candidates.append(root.appendingPathComponent("Assets", isDirectory: true))
        return candidates.first(where: holdsSamples)
    }

    /// The running executable, from `/proc/self/exe`, else `argv[0]`.
    package static func executableURL() -> URL? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        guard let first = CommandLine.arguments.first, !first.isEmpty else { return nil }
        return URL(fileURLWithPath: first)
    }

    static func holdsSamples(_ assets: URL) -> Bool {
        FileManager.default.fileExists(atPath: assets.appendingPathComponent(restaurantsFile).path)
    }

    /// The samples listed in `Assets/Restaurants/restaurants.json`.
    package static func restaurants(in assets: URL) throws -> [SampleRestaurant] {
        let data = try Data(contentsOf: assets.appendingPathComponent(restaurantsFile))
        return try JSONDecoder().decode([SampleRestaurant].self, from: data)
    }
}
