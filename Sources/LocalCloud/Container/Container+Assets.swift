import Foundation

// The content-addressed asset store, for a server taking uploads before the record that uses them.
extension Container {
    /// Copies `file` into the asset store; a record saved later names it by the returned digest.
    ///
    /// An upload no record ever refers to is an orphan, removed by ``collectGarbage(gracePeriod:)``.
    /// - Throws: `limitExceeded` over the asset size limit.
    package func importAsset(from file: URL) throws -> (digest: String, size: Int64) {
        try AssetStore(root: configuration.assetsDirectory, sizeLimit: configuration.assetSizeLimit).importFile(file)
    }

    /// The stored file with this content digest, if there is one.
    package func assetFile(forDigest digest: String) -> URL? {
        guard FieldValue.isDigest(digest) else { return nil }
        let url = AssetStore(root: configuration.assetsDirectory, sizeLimit: 0).url(forDigest: digest)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Where uploads wait while their bytes arrive (inside the data directory, so renames stay on one disk).
    package var uploadsDirectory: URL {
        configuration.assetsDirectory.appendingPathComponent("tmp", isDirectory: true)
    }
}
