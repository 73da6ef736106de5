import Foundation

extension SQLiteStore: AssetStorage {
    func importAsset(from file: URL, sizeLimit: Int64) throws -> (digest: String, size: Int64) {
        try AssetStore(root: assetsDirectory, sizeLimit: sizeLimit).importFile(file)
    }

    func assetFile(forDigest digest: String) throws -> URL? {
        let url = AssetStore(root: assetsDirectory, sizeLimit: 0).url(forDigest: digest)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    var uploadsDirectory: URL {
        assetsDirectory.appendingPathComponent("tmp", isDirectory: true)
    }
}
