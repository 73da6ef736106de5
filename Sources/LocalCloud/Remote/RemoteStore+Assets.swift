import Foundation

// Assets: uploaded through assets/upload before the save that names them, downloaded by their
// `downloadURL` into a local content-addressed cache (the same layout as the embedded store).
extension RemoteStore {
    var assetCacheDirectory: URL { cacheDirectory.appendingPathComponent("assets", isDirectory: true) }

    var assetCache: AssetStore { AssetStore(root: assetCacheDirectory, sizeLimit: configuration.assetSizeLimit) }

    /// The cached file for a digest, or `nil` when it has not been downloaded.
    func cachedAsset(_ digest: String) -> URL? {
        let url = assetCache.url(forDigest: digest)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Downloads an asset into the cache and checks its bytes against the digest.
    func downloadAsset(digest: String, from url: String) throws {
        let bytes = try client.download(url)
        let temporary = assetCacheDirectory.appendingPathComponent("tmp", isDirectory: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let file = temporary.appendingPathComponent("download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes)) else {
            throw CloudError(.internalError, "Cannot write the asset cache at \(assetCacheDirectory.path)")
        }
        let (received, _) = try assetCache.importFile(file)
        guard received == digest else {
            try? FileManager.default.removeItem(at: assetCache.url(forDigest: received))
            throw CloudError(.networkFailure, "The asset downloaded from \(client.endpoint.host) does not match its checksum")
        }
    }

    /// Uploads every asset of the record that has a local file and no receipt yet, and returns
    /// each field's `{value: {receipt, fileChecksum, size}, type: ASSETID}` for the save.
    func uploadAssets(of record: Record, context: StoreContext) throws -> [String: JSONValue] {
        let state = record.snapshot
        var receipts: [String: JSONValue] = [:]
        for key in state.changed.sorted() {
            guard case .asset(let asset)? = state.fields[key], asset.contentDigest == nil, let file = asset.fileURL else { continue }
            // The cache holds a copy first: the saved record's asset then reads locally, and the
            // bytes sent are the bytes hashed.
            let (digest, _) = try assetCache.importFile(file)
            receipts[key] = try uploadCachedAsset(digest: digest, field: key, recordType: record.recordType,
                                                  recordName: record.recordID.recordName, context: context)
        }
        return receipts
    }

    /// Uploads the cached bytes of `digest` for a record's field: `{value: {receipt, …}, type: ASSETID}`.
    func uploadCachedAsset(digest: String, field: String, recordType: String, recordName: String,
                           context: StoreContext) throws -> JSONValue {
        let tokens = try client.database(context.scope, "assets/upload", body: .object(["tokens": .array([.object([
            "recordType": .string(recordType), "fieldName": .string(field), "recordName": .string(recordName),
        ])])]), idempotent: true)
        guard let url = tokens.at("tokens", "0", "url")?.stringValue else {
            throw CloudError(.networkFailure, "\(client.endpoint.host) gave no upload URL for \(field)")
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: assetCache.url(forDigest: digest)))
        } catch {
            throw CloudError(.assetFileNotFound, "Cannot read the asset for \(field): \(error.localizedDescription)")
        }
        let uploaded = try client.upload(bytes, to: url)
        guard let single = uploaded["singleFile"], single["receipt"]?.stringValue == digest else {
            throw CloudError(.networkFailure, "\(client.endpoint.host) did not confirm the upload of \(field)")
        }
        return .object(["value": single, "type": .string("ASSETID")])
    }

    // MARK: AssetStorage

    package func importAsset(from file: URL, sizeLimit: Int64) throws -> (digest: String, size: Int64) {
        try AssetStore(root: assetCacheDirectory, sizeLimit: sizeLimit).importFile(file)
    }

    package func assetFile(forDigest digest: String) throws -> URL? {
        cachedAsset(digest)
    }

    package var uploadsDirectory: URL { assetCacheDirectory.appendingPathComponent("tmp", isDirectory: true) }
}
