import Foundation

// Assets: uploaded through assets/upload before the save that names them, downloaded by their
// `downloadURL` into a local content-addressed cache (the same layout as the embedded store).
extension RemoteStore {
    var assetCacheDirectory: URL { cacheDirectory.appendingPathComponent("assets", isDirectory: true) }

    var assetCache: AssetStore { AssetStore(root: assetCacheDirectory, sizeLimit: configuration.assetSizeLimit) }

    /// The cached file for a digest, or `nil` when it has not been downloaded. A hit counts as a
    /// use for the least-recently-used eviction (the file's modification time is the last use).
    func cachedAsset(_ digest: String) -> URL? {
        let url = assetCache.url(forDigest: digest)
        // The use is stamped with the store's clock, so tests order uses without sleeping.
        let seconds = configuration.clock.now.timeIntervalSince1970
        let stamp = timeval(tv_sec: Int(seconds.rounded(.down)), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        let stamped = withUnsafePointer(to: (stamp, stamp)) { pair in
            pair.withMemoryRebound(to: timeval.self, capacity: 2) { utimes(url.path, $0) }
        }
        guard stamped == 0 else { return nil }
        return url
    }

    /// Removes the least recently used cached assets until the cache holds at most
    /// ``Container/Configuration/assetCacheLimit`` bytes. Assets of queued changes stay: they are
    /// the only copy until the outbox uploads them.
    func trimAssetCache(sparing spared: String? = nil) {
        let limit = configuration.assetCacheLimit
        var keep = Set(((try? outbox.items(allUsers: true)) ?? []).flatMap { $0.assets.values })
        if let spared { keep.insert(spared) }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        guard let files = FileManager.default.enumerator(at: assetCacheDirectory, includingPropertiesForKeys: keys) else { return }
        var entries: [(url: URL, size: Int64, used: Date)] = []
        var total: Int64 = 0
        for case let url as URL in files where url.deletingLastPathComponent().lastPathComponent != "tmp" {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            let size = Int64(values.fileSize ?? 0)
            total += size
            if !keep.contains(url.lastPathComponent) {
                entries.append((url, size, values.contentModificationDate ?? .distantPast))
            }
        }
        guard total > limit else { return }
        for entry in entries.sorted(by: { $0.used < $1.used }) where total > limit {
            if (try? FileManager.default.removeItem(at: entry.url)) != nil { total -= entry.size }
        }
    }

    /// Downloads an asset into the cache and checks its bytes against the digest.
    func downloadAsset(digest: String, from url: String) async throws {
        let bytes = try await client.download(url)
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
        trimAssetCache(sparing: digest)
    }

    /// Uploads every asset of the record that has a local file and no receipt yet, and returns
    /// each field's `{value: {receipt, fileChecksum, size}, type: ASSETID}` for the save.
    func uploadAssets(of record: Record, context: StoreContext) async throws -> [String: JSONValue] {
        let state = record.snapshot
        var receipts: [String: JSONValue] = [:]
        for key in state.changed.sorted() {
            guard case .asset(let asset)? = state.fields[key], asset.contentDigest == nil, let file = asset.fileURL else { continue }
            // The cache holds a copy first: the saved record's asset then reads locally, and the
            // bytes sent are the bytes hashed.
            let (digest, _) = try assetCache.importFile(file)
            receipts[key] = try await uploadCachedAsset(digest: digest, field: key, recordType: record.recordType,
                                                  recordName: record.recordID.recordName, context: context)
        }
        return receipts
    }

    /// Uploads the cached bytes of `digest` for a record's field: `{value: {receipt, …}, type: ASSETID}`.
    func uploadCachedAsset(digest: String, field: String, recordType: String, recordName: String,
                           context: StoreContext) async throws -> JSONValue {
        let tokens = try await client.database(context.scope, "assets/upload", body: .object(["tokens": .array([.object([
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
        let uploaded = try await client.upload(bytes, to: url)
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
