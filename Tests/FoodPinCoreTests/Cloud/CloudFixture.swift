import Foundation
import LocalCloud
@testable import FoodPinCore

/// A LocalCloud container on a fresh SQLite file in a temp directory, with the repo's real sample assets.
final class CloudFixture {
    let directory: URL
    let uploads: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foodpin-cloud-\(UUID().uuidString)", isDirectory: true)
        uploads = directory.appendingPathComponent("uploads", isDirectory: true)
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The repo's `Assets/`, found from this file's path.
    static var assets: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Assets", isDirectory: true)
    }

    static var sampleCount: Int { (try? SampleAssets.restaurants(in: assets).count) ?? -1 }

    /// A container on the fixture's data directory; with `schema`, FoodPin's schema is in place
    /// first (queries need its indexes), as the seeder would leave it.
    func container(user: String? = "alice", assetSizeLimit: Int64 = 50 * 1024 * 1024, schema: Bool = true) async -> Container {
        let container = Container(configuration: .init(dataDirectory: directory.appendingPathComponent("data", isDirectory: true),
                                                       user: user, assetSizeLimit: assetSizeLimit))
        if schema { try? await seeder(container).ensureSchema() }
        return container
    }

    func seeder(_ container: Container) -> SampleSeeder {
        SampleSeeder(container: container, assets: Self.assets)
    }

    func backend(user: String? = "alice", seeded: Bool = false, assetSizeLimit: Int64 = 50 * 1024 * 1024) async -> CloudDiscoverBackend {
        let container = await container(user: user, assetSizeLimit: assetSizeLimit)
        return CloudDiscoverBackend(container: container, seeder: seeded ? seeder(container) : nil,
                                    temporaryDirectory: uploads)
    }

    /// Files left in the upload directory (the backend must remove its temp JPEGs).
    var leftoverUploads: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? ["<unreadable>"]
    }
}
