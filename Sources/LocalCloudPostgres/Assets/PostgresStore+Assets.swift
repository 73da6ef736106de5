import Foundation
import LocalCloud
import PostgresNIO

/// Content-addressed assets in PostgreSQL: `assets` (digest, size) and `asset_chunks` (its bytes
/// in 1 MB pieces), always written in one transaction, so an asset row is never visible without
/// its bytes and a node needs no shared disk. Each node keeps local copies in ``PostgresStore/assetCache``
/// so fetched records' assets have readable files.
extension PostgresStore: AssetStorage {
    static let chunkSize = 1 << 20

    /// `<cache>/ab/abcdef…`
    static func assetURL(digest: String, in cache: URL) -> URL? {
        guard !digest.isEmpty else { return nil }
        return cache.appendingPathComponent(String(digest.prefix(2)), isDirectory: true).appendingPathComponent(digest)
    }

    /// Reads a file whole and names it by its SHA-256.
    /// - Throws: `assetFileNotFound` when the file is missing, `limitExceeded` over `limit`.
    static func readAsset(_ url: URL, limit: Int64) throws -> (digest: String, data: Data) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = (attributes?[.size] as? NSNumber)?.int64Value else {
            throw CloudError(.assetFileNotFound, "Asset file not found: \(url.path)")
        }
        guard size <= limit else {
            throw CloudError(.limitExceeded, "Asset \(url.lastPathComponent) exceeds the asset size limit of \(limit) bytes")
        }
        guard let data = try? Data(contentsOf: url) else {
            throw CloudError(.assetFileNotFound, "Asset file not found: \(url.path)")
        }
        return (SHA256Hasher.hexDigest(of: data), data)
    }

    /// Inserts assets the database lacks, row and chunks together, in the caller's transaction.
    /// An existing row is touched instead, so garbage collection sees it as recent.
    func insertAssets(_ assets: [String: Data], connection: PostgresConnection, logger: Logger) async throws {
        for (digest, data) in assets.sorted(by: { $0.key < $1.key }) {
            var insert = PostgresStatement("INSERT INTO \(schema).assets (digest, size) VALUES (")
            insert.sql += "\(insert.bind(digest)), \(insert.bind(Int64(data.count)))) ON CONFLICT (digest) DO UPDATE SET stored_at = now() "
            insert.sql += "RETURNING (xmax = 0) AS inserted"
            guard let row = try await connection.rows(insert, logger: logger).first, try row.decode(Bool.self) else { continue }
            var offset = 0
            var chunk = 0
            repeat {
                let end = min(offset + Self.chunkSize, data.count)
                var piece = PostgresStatement("INSERT INTO \(schema).asset_chunks (digest, chunk, bytes) VALUES (")
                piece.sql += "\(piece.bind(digest)), \(piece.bind(chunk)), \(piece.bind(ByteBuffer(bytes: data[offset..<end]))))"
                _ = try await connection.execute(piece, logger: logger)
                offset = end
                chunk += 1
            } while offset < data.count
        }
    }

    package func importAsset(from file: URL, sizeLimit: Int64) async throws -> (digest: String, size: Int64) {
        let (digest, data) = try Self.readAsset(file, limit: sizeLimit)
        try await write { connection in try await self.insertAssets([digest: data], connection: connection, logger: self.pool.logger) }
        try? writeCacheFile(digest: digest, data: data)
        return (digest, Int64(data.count))
    }

    package func assetFile(forDigest digest: String) async throws -> URL? {
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let url = Self.assetURL(digest: digest, in: assetCache) else { return nil }
        if FileManager.default.fileExists(atPath: url.path) { return url }
        guard let data = try await assetData(digest) else { return nil }
        try writeCacheFile(digest: digest, data: data)
        return url
    }

    package var uploadsDirectory: URL {
        assetCache.appendingPathComponent("tmp", isDirectory: true)
    }

    /// The asset's bytes from its chunks, `nil` when the database has no such asset.
    func assetData(_ digest: String) async throws -> Data? {
        var statement = PostgresStatement("SELECT bytes FROM \(schema).asset_chunks WHERE digest = ")
        statement.sql += "\(statement.bind(digest)) ORDER BY chunk"
        let query = statement
        let chunks = try await call { pool in try await pool.rows(query.sql, query.binds).map { try $0.decode(ByteBuffer.self) } }
        guard !chunks.isEmpty else { return nil }
        var data = Data()
        for chunk in chunks { data.append(contentsOf: chunk.readableBytesView) }
        return data
    }

    /// Writes a cache copy atomically (temporary name, then rename), so readers never see half a file.
    private func writeCacheFile(digest: String, data: Data) throws {
        guard let url = Self.assetURL(digest: digest, in: assetCache) else { return }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    /// Makes sure every asset of `records` has its local copy, fetching missing bytes from the database.
    func materializeAssets(in records: [Record]) async throws {
        var digests: Set<String> = []
        func collect(_ value: FieldValue) {
            switch value {
            case .asset(let asset): if let digest = asset.contentDigest { digests.insert(digest) }
            case .list(let items): items.forEach(collect)
            default: break
            }
        }
        for record in records { record.snapshot.fields.values.forEach(collect) }
        for digest in digests {
            guard let url = Self.assetURL(digest: digest, in: assetCache), !FileManager.default.fileExists(atPath: url.path) else { continue }
            if let data = try await assetData(digest) { try writeCacheFile(digest: digest, data: data) }
        }
    }

    /// Removes assets no record refers to whose last write is older than `gracePeriod` (an upload
    /// waits that long for the record that names it), and this node's stale cache files.
    package func collectGarbage(gracePeriod: TimeInterval) async throws -> GarbageCollectionReport {
        let removed: [(String, Int64)] = try await write { connection in
            var statement = PostgresStatement("DELETE FROM \(self.schema).assets a WHERE a.stored_at < now() - make_interval(secs => ")
            statement.sql += "\(statement.bind(gracePeriod))) AND NOT EXISTS (SELECT 1 FROM \(self.schema).record_assets ra WHERE ra.digest = a.digest)"
            statement.sql += " RETURNING digest, size"
            return try await connection.rows(statement, logger: self.pool.logger).map { try $0.decode((String, Int64).self) }
        }
        var report = GarbageCollectionReport()
        let counts = try await call { pool in
            try await pool.rows("""
                SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM \(self.schema).record_assets ra WHERE ra.digest = a.digest))
                FROM \(self.schema).assets a
                """).map { try $0.decode((Int64, Int64).self) }
        }
        report.scannedAssets = Int(counts.first?.0 ?? 0) + removed.count
        report.keptRecentAssets = Int(counts.first?.1 ?? 0)
        report.removedAssets = removed.count
        report.bytesFreed = removed.reduce(0) { $0 + $1.1 }
        for (digest, _) in removed {
            if let url = Self.assetURL(digest: digest, in: assetCache) { try? FileManager.default.removeItem(at: url) }
        }
        // Against files' modification times, which the file system stamps with the system's clock:
        // so the system's time here, not the store's injected clock.
        let cutoff = Date().addingTimeInterval(-gracePeriod)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: uploadsDirectory.path)) ?? [] {
            let url = uploadsDirectory.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
            if let modified, modified < cutoff, (try? FileManager.default.removeItem(at: url)) != nil {
                report.removedTemporaryFiles += 1
            }
        }
        return report
    }
}
