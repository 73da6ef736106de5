import Foundation

// The content-addressed asset store, for a server taking uploads before the record that uses them.
extension Container {
    /// Copies `file` into the asset store; a record saved later names it by the returned digest.
    ///
    /// An upload no record ever refers to is an orphan, removed by ``collectGarbage(gracePeriod:)``.
    /// - Throws: `limitExceeded` over the asset size limit.
    package func importAsset(from file: URL) async throws -> (digest: String, size: Int64) {
        let limit = configuration.assetSizeLimit
        // On the database's queue: a database-server store blocks while it writes the bytes.
        return try await publicCloudDatabase.perform { db in try await db.core.store().importAsset(from: file, sizeLimit: limit) }
    }

    /// A local file with this content digest, fetched on the database's queue (a database-server
    /// store may copy the bytes out first); `nil` when the store has no such asset.
    package func assetFile(forDigest digest: String) async -> URL? {
        guard FieldValue.isDigest(digest) else { return nil }
        return try? await publicCloudDatabase.perform { db in try await db.core.store().assetFile(forDigest: digest) }
    }

    /// A local file with this content digest, if the store has the asset: for checks made while
    /// decoding a request, where the embedded store only looks at its directory.
    package func assetFileNow(forDigest digest: String) async -> URL? {
        guard FieldValue.isDigest(digest) else { return nil }
        return try? await core.store().assetFile(forDigest: digest)
    }

    /// Where uploads wait while their bytes arrive: in the data directory, beside the embedded
    /// store's assets (so its import is a rename on one disk). Never opens the store, so a request
    /// handler can ask it without waiting on a database.
    package var uploadsDirectory: URL {
        configuration.assetsDirectory.appendingPathComponent("tmp", isDirectory: true)
    }
}
