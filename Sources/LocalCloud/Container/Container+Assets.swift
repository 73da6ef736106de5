import Foundation

// The content-addressed asset store, for a server taking uploads before the record that uses them.
extension Container {
    /// Copies `file` into the asset store; a record saved later names it by the returned digest.
    ///
    /// An upload no record ever refers to is an orphan, removed by ``collectGarbage(gracePeriod:)``.
    /// - Throws: `limitExceeded` over the asset size limit.
    package func importAsset(from file: URL) throws -> (digest: String, size: Int64) {
        try core.store().importAsset(from: file, sizeLimit: configuration.assetSizeLimit)
    }

    /// A local file with this content digest, if the store has the asset.
    package func assetFile(forDigest digest: String) -> URL? {
        guard FieldValue.isDigest(digest) else { return nil }
        return try? core.store().assetFile(forDigest: digest)
    }

    /// Where uploads wait while their bytes arrive (beside the assets, so renames stay on one disk).
    package var uploadsDirectory: URL {
        (try? core.store().uploadsDirectory) ?? configuration.assetsDirectory.appendingPathComponent("tmp", isDirectory: true)
    }
}
